// Inline SVG charts for the HTML report: a line chart (latency by percentile) and a
// grouped bar chart (QPS, allocations per RPC), with axes, gridlines and a legend.
// The output is a self-contained <svg> element: no scripts, fonts or images.
//
// Example:
//   reco::LineSeries s{"heap", {{0.3, 1.2}, {2, 4.5}}};
//   std::string svg = reco::LineChartSvg("Latency", "percentile", "ms", {s}, reco::NinesAxis());
//
// Thread-safety: pure functions.
#ifndef ARENA_GRPC_CLIENT_SVG_CHART_H_
#define ARENA_GRPC_CLIENT_SVG_CHART_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reco {

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
};

// Ticks of the x axis: position and label.
using AxisTicks = std::vector<std::pair<double, std::string>>;

// x = log10(1 / (1 - p/100)): 50 -> 0.3, 90 -> 1, 99 -> 2, 99.9 -> 3, so each "nine"
// of a percentile gets the same width, as latency curves are usually drawn.
double NinesX(double percentile);
AxisTicks NinesAxis();

std::string LineChartSvg(const std::string& title, const std::string& x_label, const std::string& y_label,
                         const std::vector<LineSeries>& series, const AxisTicks& x_ticks);

struct BarGroup {
  std::string label;                   // under the group (a target)
  std::vector<std::optional<double>> values;  // one per bar kind; nullopt: n/a
  std::vector<std::pair<double, double>> ranges;  // optional (lo, hi) whisker per bar
};

// Groups side by side; bar kinds share a colour across groups and the legend names
// them (`kinds`); a single kind needs no legend.
std::string BarChartSvg(const std::string& title, const std::string& y_label, const std::vector<std::string>& kinds,
                        const std::vector<BarGroup>& groups, int decimals);

// Escapes &, <, >, " for HTML and SVG text.
std::string EscapeXml(const std::string& text);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_SVG_CHART_H_
