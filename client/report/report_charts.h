// The six charts of the HTML report (client/report/report_renderers.h), in reading order:
//   chart-server-cpu  server CPU per RPC                 bars, one per target
//   chart-qps         QPS, whiskers min-max over rounds  bars
//   chart-allocs      server allocations per RPC         bars: build, whole process
//   chart-latency     latency p50..p99.9                 lines, log y axis
//   chart-round-qps   QPS of each round                  a dot per round, log y axis
//   chart-phases      server build / serialize / release p99   grouped bars
// Target i has SeriesColor(i) in every chart (client/report/svg_chart.h), and every chart has
// a legend. A bar group no target has a value in is not drawn (a foreign service's
// phases chart shows build alone). The charts whose figures are n/a for every target
// (no target served server figures) share one line under the grid of the drawn ones
// (no hole in the grid), which says why once and keeps each chart's id:
//   <p class="absent">Not drawn, no target served their figures (feed: ...):
//   <span class="absent" id="chart-server-cpu"><b>Server CPU per RPC ...</b></span>, ....</p>
//
// Example:
//   std::string html = reco::ReportChartsHtml(report);   // the drawn <svg>s, then the line
//
// Thread-safety: a pure function of the report.
#ifndef ARENA_GRPC_CLIENT_REPORT_REPORT_CHARTS_H_
#define ARENA_GRPC_CLIENT_REPORT_REPORT_CHARTS_H_

#include <string>

#include "client/run_report.h"

namespace reco {

// The ids above, in order.
inline constexpr const char* kReportChartIds[] = {"chart-server-cpu", "chart-qps",       "chart-allocs",
                                                  "chart-latency",    "chart-round-qps", "chart-phases"};

// The drawn charts, each in a <div class="cell"> of a <div class="charts"> grid (laid
// out by the page's style), then the line naming the absent ones.
std::string ReportChartsHtml(const RunReport& report);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REPORT_CHARTS_H_
