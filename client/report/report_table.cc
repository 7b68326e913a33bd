// The terminal table. See report_renderers.h.
#include <algorithm>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/noise_guard.h"
#include "client/report/report_figures.h"
#include "client/report/report_renderers.h"
#include "client/report/report_verdict.h"
#include "core/request.h"

namespace reco {
namespace {

using Row = std::vector<std::string>;

// A figure's row: each target's value, and its paired ratio to the baseline.
Row FigureRow(const RunReport& report, const Figure& f, bool* any_skipped) {
  Row row = {f.label};
  for (size_t i = 0; i < report.targets.size(); ++i) {
    std::string cell = FormatFigure(f, f.Of(report.targets[i]));
    if (std::optional<PairedRatio> r = i > 0 ? RatioToBaseline(report, i, f) : std::nullopt) {
      absl::StrAppend(&cell, " (", FormatPairedRatio(*r), ")");
      *any_skipped |= r->skipped > 0;
    }
    row.push_back(cell);
  }
  return row;
}

Row QpsSpreadRow(const RunReport& report) {
  Row row = {"QPS min-max over rounds"};
  for (const TargetResult& t : report.targets) {
    auto [lo, hi] = t.QpsRange();
    row.push_back(absl::StrFormat("%.0f-%.0f", lo, hi));
  }
  return row;
}

Row CeilingShareRow(const RunReport& report, bool* any_skipped) {
  Row row = {"QPS share of ceiling"};
  for (size_t i = 0; i < report.targets.size(); ++i) {
    std::optional<PairedRatio> v = report.PairedQpsShareOfCeiling(i);
    row.push_back(v ? FormatPairedShare(*v) : "n/a");
    *any_skipped |= v && v->skipped > 0;
  }
  return row;
}

// The header row, then a row per figure (the QPS row followed by its spread over
// rounds and its share of the ceiling), with a section line before the server's.
std::vector<Row> TableRows(const RunReport& report, bool* any_skipped, std::vector<std::string>* left_out) {
  std::vector<Row> rows;
  Row header = {""};
  for (const TargetResult& t : report.targets) header.push_back(t.spec.name);
  rows.push_back(header);
  std::string section;
  for (const Figure& f : ShownFigures(report, left_out)) {
    if (f.section != section) {
      section = f.section;
      if (section == "server") rows.push_back({"-- server side (per measured window)"});
    }
    rows.push_back(FigureRow(report, f, any_skipped));
    if (f.key != "qps") continue;
    if (report.options.rounds > 1) rows.push_back(QpsSpreadRow(report));
    if (report.CeilingIndex() >= 0) rows.push_back(CeilingShareRow(report, any_skipped));
  }
  return rows;
}

bool IsSectionLine(const Row& row) { return row.size() == 1 && !row[0].empty() && row[0][0] == '-'; }

// The rows as aligned text: labels left, values right; a section line spans the table.
std::string AlignedRows(const std::vector<Row>& rows) {
  std::vector<size_t> width;
  for (const Row& row : rows) {
    if (IsSectionLine(row)) continue;
    for (size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  for (const Row& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      absl::StrAppend(&out,
                      c == 0 ? absl::StrFormat("%-*s", width[0], row[c]) : absl::StrFormat("  %*s", width[c], row[c]));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

std::string RunLine(const LoadOptions& o) {
  std::string named;
  if (!o.name.empty()) named = absl::StrCat("run \"", o.name, "\"");
  std::vector<std::string> tags;
  for (const auto& [key, value] : o.tags) tags.push_back(absl::StrCat(key, "=", value));
  if (!tags.empty()) absl::StrAppend(&named, named.empty() ? "" : " ", "tags ", absl::StrJoin(tags, ","));
  if (!named.empty()) named += "\n";
  return named + absl::StrFormat(
                     "reco_load: %d round(s) x %d target(s), %s warm-up + %s each; %s, %d in flight, %d connection(s), "
                     "%d thread(s); %s\n",
                     o.rounds, static_cast<int>(o.targets.size()), absl::FormatDuration(o.warmup), DescribeWindow(o),
                     o.open_loop() ? absl::StrFormat("open loop at %g req/s", o.rate) : std::string("closed loop"),
                     o.concurrency, o.connections, o.threads, DescribeWorkload(o));
}

// What the table's marks mean, each replicated target's spread, the mallocs in use,
// and the run's warnings.
std::string Legend(const RunReport& report, bool any_skipped) {
  std::string out;
  if (!report.targets.empty()) {
    const int rounds = static_cast<int>(report.targets[0].rounds.size());
    absl::StrAppend(&out, PairedRatioLegend(rounds, report.targets[0].spec.name, any_skipped), "\n");
    if (report.CeilingIndex() >= 0 && rounds > 1) {
      absl::StrAppend(&out,
                      "QPS share of ceiling: median of the per-round shares (round r's QPS over the "
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
  absl::StrAppend(&out, "malloc: client ", report.environment.client_malloc(),
                  "; servers: ", absl::StrJoin(mallocs, ", "), "\n");
  if (!report.environment.client_poller().empty()) {
    absl::StrAppend(&out, "client's gRPC poller: ", report.environment.client_poller(), "\n");
  }
  for (const std::string& w : report.warnings) absl::StrAppend(&out, "warning: ", w, "\n");
  return out;
}

// The last lines, what a reader looks for first: the same words as the HTML's top.
std::string Verdict(const RunReport& report) {
  std::string out = VerdictHeading(report) + "\n";
  for (const std::string& line : VerdictLines(report)) absl::StrAppend(&out, "  ", line, "\n");
  if (std::string noise = NoiseVerdict(report); !noise.empty()) absl::StrAppend(&out, "  ", noise, "\n");
  return out;
}

}  // namespace

std::string RenderTable(const RunReport& report) {
  bool any_skipped = false;  // some ratio is over fewer rounds: the legend says what "*" means
  std::vector<std::string> left_out;
  const std::vector<Row> rows = TableRows(report, &any_skipped, &left_out);
  std::string left = LeftOutLine(left_out);
  if (!left.empty()) left += "\n";
  return RunLine(report.options) + AlignedRows(rows) + left + Legend(report, any_skipped) + Verdict(report);
}

absl::Status WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace reco
