// Inline SVG charts for the HTML report: a line chart (latency by percentile, QPS by
// round; linear or log y axis, optional dots) and a grouped bar chart (figures per
// target), with axes, gridlines and a legend. Series i is drawn in SeriesColor(i) in
// every chart, so when series i is target i a target keeps one colour throughout the
// report. The output is a self-contained <svg> element with the frame's id and an
// aria-label (its title): no scripts, fonts or images.
//
// Example:
//   reco::LineChart chart{{"chart-latency", "Latency", "ms"}, "percentile", reco::NinesAxis(), /*log_y=*/true};
//   std::string svg = reco::LineChartSvg(chart, {{"heap", {{0.3, 1.2}, {2, 4.5}}}});
//   reco::LogTicks(0.3, 4)   // {0.2, 0.5, 1, 2, 5}
//
// Thread-safety: pure functions.
#ifndef ARENA_GRPC_CLIENT_REPORT_SVG_CHART_H_
#define ARENA_GRPC_CLIENT_REPORT_SVG_CHART_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reco {

// What every chart has.
struct ChartFrame {
  std::string id;  // the <svg>'s id, stable for tests and links: "chart-qps"
  std::string title;
  std::string y_label;
};

// Series i's colour ("#1f77b4" for 0); the palette repeats after seven series.
const char* SeriesColor(size_t i);

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
};

// Ticks of an axis: position and label.
using AxisTicks = std::vector<std::pair<double, std::string>>;

// x = log10(1 / (1 - p/100)): 50 -> 0.3, 90 -> 1, 99 -> 2, 99.9 -> 3, so each "nine"
// of a percentile gets the same width, as latency curves are usually drawn.
double NinesX(double percentile);
// p50, p90, p99, p99.9: the percentiles every report shows.
AxisTicks NinesAxis();

// Ticks of a log axis that holds [lo, hi] (lo > 0): 1, 2 and 5 times each power of
// ten, from the largest tick <= lo to the smallest >= hi; only the powers of ten when
// hi / lo spans more than two decades. LogTicks(0.3, 4) = {0.2, 0.5, 1, 2, 5};
// LogTicks(0.05, 800) = {0.01, 0.1, 1, 10, 100, 1000}. A lo <= 0 is taken as hi/10.
std::vector<double> LogTicks(double lo, double hi);

struct LineChart {
  ChartFrame frame;
  std::string x_label;
  AxisTicks x_ticks;     // the x axis runs from the first tick to the last
  bool log_y = false;    // y on LogTicks; points with y <= 0 are left out
  bool markers = false;  // a dot on every point (few points: rounds)
};
std::string LineChartSvg(const LineChart& chart, const std::vector<LineSeries>& series);

struct BarGroup {
  std::string label;                              // under the group: a figure ("build p99")
  std::vector<std::optional<double>> values;      // one per series; nullopt: n/a
  std::vector<std::pair<double, double>> ranges;  // optional (lo, hi) whisker per series
};

// Groups side by side, a bar per series in each (coloured by series, named by the
// legend); a chart of one group names each bar under it instead of the group.
std::string BarChartSvg(const ChartFrame& frame, const std::vector<std::string>& series,
                        const std::vector<BarGroup>& groups, int decimals);

// Escapes &, <, >, " for HTML and SVG text.
std::string EscapeXml(const std::string& text);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_SVG_CHART_H_
