// The HTML report: one self-contained page (inline CSS and SVG, no scripts, nothing
// fetched). See report_renderers.h.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/report_figures.h"
#include "client/report_renderers.h"
#include "client/svg_chart.h"
#include "core/request.h"

namespace reco {
namespace {

// Enough points for a smooth curve up to p99.99.
constexpr double kCurve[] = {0,  10, 20, 30, 40,   50,   60,   70,    75,   80,    85,     90,
                             92, 94, 95, 96, 97,   98,   99,   99.3,  99.5, 99.7,  99.8,   99.9,
                             99.93, 99.95, 99.97, 99.99};

std::string LatencyChart(const RunReport& report) {
  std::vector<LineSeries> series;
  for (const TargetResult& t : report.targets) {
    LineSeries s{t.spec.name, {}};
    if (t.client.latency.count() > 0) {
      for (double p : kCurve) s.points.push_back({NinesX(p), t.client.latency.Percentile(p) / 1e6});
    }
    series.push_back(std::move(s));
  }
  const bool open = report.options.open_loop();
  return LineChartSvg(open ? "Latency by percentile (from the scheduled send time)" : "Latency by percentile",
                      "percentile (each step to the right adds a nine)", "latency (ms)", series, NinesAxis());
}

std::string QpsChart(const RunReport& report) {
  std::vector<BarGroup> groups;
  for (const TargetResult& t : report.targets) {
    auto [lo, hi] = t.QpsRange();
    groups.push_back({t.spec.name, {t.client.qps()}, {{lo, hi}}});
  }
  return BarChartSvg("QPS (whiskers: min-max over rounds)", "OK responses per second", {"QPS"}, groups, 0);
}

std::string AllocationChart(const RunReport& report) {
  std::vector<BarGroup> groups;
  // The same figures as the table (n/a where the server has no figure).
  std::vector<Figure> figures;
  for (const Figure& f : ReportFigures(report.options)) {
    for (const char* key : {"server_build_allocs_per_rpc", "server_serialize_allocs_per_rpc",
                            "server_release_allocs_per_rpc", "server_process_allocs_per_rpc"}) {
      if (f.key == key) figures.push_back(f);
    }
  }
  for (const TargetResult& t : report.targets) {
    BarGroup g{t.spec.name, {}, {}};
    for (const Figure& f : figures) g.values.push_back(f.Of(t));
    groups.push_back(std::move(g));
  }
  return BarChartSvg("Server allocations per RPC", "allocations per RPC",
                     {"build", "serialize", "release", "whole process"}, groups, 0);
}

std::string FigureTable(const RunReport& report) {
  std::string s = "<table>\n<tr><th></th>";
  for (const TargetResult& t : report.targets) absl::StrAppend(&s, "<th>", EscapeXml(t.spec.name), "</th>");
  absl::StrAppend(&s, "</tr>\n");
  bool any_skipped = false;  // some ratio is over fewer rounds: the legend says what "*" means
  for (const Figure& f : ReportFigures(report.options)) {
    absl::StrAppend(&s, "<tr><td>", EscapeXml(f.label), "</td>");
    for (size_t i = 0; i < report.targets.size(); ++i) {
      std::string ratio;
      if (std::optional<PairedRatio> r = i > 0 ? RatioToBaseline(report, i, f) : std::nullopt) {
        ratio = absl::StrCat(" <span class=\"ratio\">", FormatPairedRatio(*r), "</span>");
        any_skipped |= r->skipped > 0;
      }
      absl::StrAppend(&s, "<td>", FormatFigure(f, f.Of(report.targets[i])), ratio, "</td>");
    }
    absl::StrAppend(&s, "</tr>\n");
    if (f.key == "qps" && report.CeilingIndex() >= 0) {
      absl::StrAppend(&s, "<tr><td>QPS share of ceiling</td>");
      for (size_t i = 0; i < report.targets.size(); ++i) {
        std::optional<PairedRatio> v = report.PairedQpsShareOfCeiling(i);
        absl::StrAppend(&s, "<td>", v ? FormatPairedShare(*v) : "n/a", "</td>");
        any_skipped |= v && v->skipped > 0;
      }
      absl::StrAppend(&s, "</tr>\n");
    }
  }
  absl::StrAppend(&s, "</table>\n");
  if (!report.targets.empty()) {
    const int rounds = static_cast<int>(report.targets[0].rounds.size());
    absl::StrAppend(&s, "<p class=\"ratio\">",
                    EscapeXml(PairedRatioLegend(rounds, report.targets[0].spec.name, any_skipped)));
    if (report.CeilingIndex() >= 0 && rounds > 1) {
      absl::StrAppend(&s, ". QPS share of ceiling: median of the per-round shares [min-max]");
    }
    absl::StrAppend(&s, ".</p>\n");
  }
  return s;
}

}  // namespace

std::string RenderHtml(const RunReport& report) {
  const LoadOptions& o = report.options;
  const RunEnvironment& e = report.environment;
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<title>reco_load report</title>\n<style>\n"
      "body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}"
      "table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
      "td:first-child{text-align:left}.ratio{color:#666;font-size:90%}.warn{color:#a40}"
      "svg.chart{display:block;margin:16px 0;border:1px solid #eee}\n"
      "</style></head><body>\n<h1>reco_load report</h1>\n";
  absl::StrAppendFormat(
      &s, "<p>%d round(s) per target, %s warm-up + %s each; %s; %d in flight, %d connection(s); %s. "
      "Baseline for ratios: <b>%s</b>.</p>\n",
      o.rounds, absl::FormatDuration(o.warmup), EscapeXml(DescribeWindow(o)),
      o.open_loop() ? absl::StrFormat("open loop at %g req/s", o.rate) : std::string("closed loop"), o.concurrency,
      o.connections, EscapeXml(DescribeWorkload(o)),
      EscapeXml(o.targets.empty() ? "" : o.targets[0].name));
  absl::StrAppendFormat(&s, "<p>CPU: %s (%d CPUs). protobuf %s, gRPC %s. Client malloc: %s. Started %s.</p>\n",
                        EscapeXml(e.cpu_model), e.cpus, EscapeXml(e.protobuf_version), EscapeXml(e.grpc_version),
                        EscapeXml(e.client_malloc), EscapeXml(e.started_utc));
  for (const std::string& w : report.warnings) absl::StrAppend(&s, "<p class=\"warn\">warning: ", EscapeXml(w), "</p>\n");
  absl::StrAppend(&s, LatencyChart(report), QpsChart(report), AllocationChart(report));
  absl::StrAppend(&s, "<h2>All figures</h2>\n", FigureTable(report));
  for (const TargetResult& t : report.targets) {
    if (!t.replicas.empty()) absl::StrAppend(&s, "<p class=\"replicas\">", EscapeXml(ReplicaShareLine(t)), "</p>\n");
  }
  absl::StrAppend(&s, "<p>Command: <code>", EscapeXml(e.command_line), "</code></p>\n</body></html>\n");
  return s;
}

}  // namespace reco
