// The terminal table. See report_renderers.h.
#include <algorithm>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/report_figures.h"
#include "client/report_renderers.h"
#include "core/request.h"

namespace reco {
std::string RenderTable(const RunReport& report) {
  const LoadOptions& o = report.options;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const TargetResult& t : report.targets) header.push_back(t.spec.name);
  rows.push_back(header);
  std::string section;
  bool any_skipped = false;  // some ratio is over fewer rounds: the legend says what "*" means
  for (const Figure& f : ReportFigures(o)) {
    if (f.section != section) {
      section = f.section;
      if (section == "server") rows.push_back({"-- server side (per measured window)"});
    }
    std::vector<std::string> row = {f.label};
    for (size_t i = 0; i < report.targets.size(); ++i) {
      std::string cell = FormatFigure(f, f.Of(report.targets[i]));
      if (std::optional<PairedRatio> r = i > 0 ? RatioToBaseline(report, i, f) : std::nullopt) {
        absl::StrAppend(&cell, " (", FormatPairedRatio(*r), ")");
        any_skipped |= r->skipped > 0;
      }
      row.push_back(cell);
    }
    rows.push_back(row);
    if (f.key == "qps" && o.rounds > 1) {
      std::vector<std::string> spread = {"QPS min-max over rounds"};
      for (const TargetResult& t : report.targets) {
        auto [lo, hi] = t.QpsRange();
        spread.push_back(absl::StrFormat("%.0f-%.0f", lo, hi));
      }
      rows.push_back(spread);
    }
    if (f.key == "qps" && report.CeilingIndex() >= 0) {
      std::vector<std::string> share = {"QPS share of ceiling"};
      for (size_t i = 0; i < report.targets.size(); ++i) {
        std::optional<PairedRatio> v = report.PairedQpsShareOfCeiling(i);
        share.push_back(v ? FormatPairedShare(*v) : "n/a");
        any_skipped |= v && v->skipped > 0;
      }
      rows.push_back(share);
    }
  }
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (row.size() == 1 && !row[0].empty() && row[0][0] == '-') continue;  // a section line spans the table
    for (size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out = absl::StrFormat(
      "reco_load: %d round(s) x %d target(s), %s warm-up + %s measured each; %s, %d in flight, %d connection(s), "
      "%d thread(s); %u items, %s text\n",
      o.rounds, static_cast<int>(o.targets.size()), absl::FormatDuration(o.warmup), absl::FormatDuration(o.duration),
      o.open_loop() ? absl::StrFormat("open loop at %g req/s", o.rate) : std::string("closed loop"), o.concurrency,
      o.connections, o.threads, o.items ? o.items : kDefaultItemCount, TextProfileName(o.profile));
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += c == 0 ? absl::StrFormat("%-*s", width[0], row[c]) : absl::StrFormat("  %*s", width[c], row[c]);
    }
    absl::StrAppend(&out, line, "\n");
  }
  if (!report.targets.empty()) {
    const int rounds = static_cast<int>(report.targets[0].rounds.size());
    absl::StrAppend(&out, PairedRatioLegend(rounds, report.targets[0].spec.name, any_skipped), "\n");
    if (report.CeilingIndex() >= 0 && rounds > 1) {
      absl::StrAppend(&out, "QPS share of ceiling: median of the per-round shares (round r's QPS over the "
                            "ceiling's round r) [min-max]\n");
    }
  }
  for (const TargetResult& t : report.targets) {
    if (!t.replicas.empty()) absl::StrAppend(&out, ReplicaShareLine(t), "\n");
  }
  std::vector<std::string> mallocs;
  for (const TargetResult& t : report.targets) {
    mallocs.push_back(absl::StrCat(t.spec.name, " ", t.server.available ? t.server.malloc : "?"));
  }
  absl::StrAppend(&out, "malloc: client ", report.environment.client_malloc, "; servers: ", absl::StrJoin(mallocs, ", "),
                  "\n");
  for (const std::string& w : report.warnings) absl::StrAppend(&out, "warning: ", w, "\n");
  return out;
}

absl::Status WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace reco
