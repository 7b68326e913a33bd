// Renderers of a RunReport: a terminal table, JSON (every figure, the parameters and
// the environment), CSV (one row per target and round, plus an "all" row and the
// paired-ratio rows per target) and a self-contained HTML page (inline SVG charts
// only; nothing is loaded from the network): the verdict, six charts
// (client/report/report_charts.h), the warnings folded under one line, then every figure.
// Every ratio they show comes from RatioToBaseline / RunReport::PairedQpsShareOfCeiling
// (client/paired_ratio.h): the median of the per-round ratios with their min-max,
// never a ratio of run totals.
//
// Example:
//   std::fputs(reco::RenderTable(report).c_str(), stdout);
//   absl::Status s = reco::WriteFile("results/report.html", reco::RenderHtml(report));
//
// Thread-safety: pure functions of the report.
#ifndef ARENA_GRPC_CLIENT_REPORT_REPORT_RENDERERS_H_
#define ARENA_GRPC_CLIENT_REPORT_REPORT_RENDERERS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "client/run_report.h"

namespace reco {

// Targets as columns, one figure per row; every value after the first column also
// shows its paired ratio to the baseline (the first target), "(x1.43 [1.22-1.82])",
// and a legend under the table says what the notation means. The table ENDS with the
// verdict lines (client/report/report_verdict.h), the HTML page opens with them.
std::string RenderTable(const RunReport& report);
// The schema of the JSON, its names and JSON types, is proto/load_report.proto
// (client/report/report_proto.h maps a RunReport onto it); `reco_load merge` reads it back
// (client/report/report_reader.h).
std::string RenderJson(const RunReport& report);
std::string RenderCsv(const RunReport& report);
std::string RenderHtml(const RunReport& report);
// The summary for teams that keep load results in a time-series store: each target's
// figures (the JSON's `figures`, those with a value) and, per other target, each
// figure's paired ratio to the baseline (median, min, max), labelled with the run's
// --name and --tags. Prometheus' text exposition format (gauges reco_load_figure and
// reco_load_ratio_to_baseline, for a pushgateway or a textfile collector):
//   reco_load_figure{run="nightly",target="heap",figure="qps"} 1234.5
std::string RenderPrometheus(const RunReport& report);
// InfluxDB's line protocol: one point per target, its figures as fields:
//   reco_load,target=heap,run=nightly qps=1234.5,latency_p50_ms=1.2 1765000000000000000
std::string RenderInflux(const RunReport& report, int64_t timestamp_ns);

// Writes `contents` to `path`, replacing it; an error names the path.
absl::Status WriteFile(const std::string& path, const std::string& contents);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REPORT_RENDERERS_H_
