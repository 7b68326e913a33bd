// See svg_chart.h.
#include "client/svg_chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace reco {
namespace {

constexpr double kWidth = 760, kHeight = 360;
constexpr double kLeft = 70, kRight = 150, kTop = 40, kBottom = 50;  // margins; the right one holds the legend
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};

const char* Color(size_t i) { return kColors[i % (sizeof(kColors) / sizeof(kColors[0]))]; }

// A "nice" upper bound for an axis (1, 2, 2.5 or 5 times a power of ten).
double NiceMax(double v) {
  if (v <= 0) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (v <= m * p) return m * p;
  }
  return 10 * p;
}

std::string Frame(const std::string& title, const std::string& y_label, double y_max, int y_decimals) {
  std::string s = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%g\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
      kWidth, kHeight, kWidth, kHeight, kLeft, EscapeXml(title));
  const double plot_h = kHeight - kTop - kBottom;
  for (int i = 0; i <= 5; ++i) {
    double y = kTop + plot_h - plot_h * i / 5;
    absl::StrAppendFormat(&s,
                          "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
                          kLeft, y, kWidth - kRight, y, kLeft - 6, y + 4, y_decimals, y_max * i / 5);
  }
  absl::StrAppendFormat(&s,
                        "<text transform=\"translate(16,%g) rotate(-90)\" text-anchor=\"middle\">%s</text>\n"
                        "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#333\"/>\n",
                        kTop + plot_h / 2, EscapeXml(y_label), kLeft, kTop + plot_h, kWidth - kRight, kTop + plot_h);
  return s;
}

std::string Legend(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    double y = kTop + 10 + 20 * static_cast<double>(i);
    absl::StrAppendFormat(&s,
                          "<rect x=\"%g\" y=\"%g\" width=\"14\" height=\"10\" fill=\"%s\"/>"
                          "<text x=\"%g\" y=\"%g\">%s</text>\n",
                          kWidth - kRight + 14, y - 9, Color(i), kWidth - kRight + 34, y, EscapeXml(names[i]));
  }
  return s;
}

int DecimalsFor(double max) { return max >= 10 ? 0 : max >= 1 ? 1 : 2; }

}  // namespace

double NinesX(double percentile) {
  double tail = 1 - std::min(percentile, 99.999) / 100;
  return std::log10(1 / tail);
}

AxisTicks NinesAxis() {
  return {{NinesX(0), "p0"}, {NinesX(50), "p50"}, {NinesX(90), "p90"}, {NinesX(99), "p99"}, {NinesX(99.9), "p99.9"},
          {NinesX(99.99), "p99.99"}};
}

std::string LineChartSvg(const std::string& title, const std::string& x_label, const std::string& y_label,
                         const std::vector<LineSeries>& series, const AxisTicks& x_ticks) {
  double x_min = x_ticks.empty() ? 0 : x_ticks.front().first, x_max = x_ticks.empty() ? 1 : x_ticks.back().first;
  double y_max = 0;
  for (const LineSeries& s : series) {
    for (auto [x, y] : s.points) {
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
  }
  y_max = NiceMax(y_max);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + plot_w * (x - x_min) / (x_max - x_min > 0 ? x_max - x_min : 1); };
  auto py = [&](double y) { return kTop + plot_h - plot_h * y / y_max; };
  std::string s = Frame(title, y_label, y_max, DecimalsFor(y_max));
  for (auto [x, label] : x_ticks) {
    absl::StrAppendFormat(&s,
                          "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#eee\"/>"
                          "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                          px(x), kTop, px(x), kTop + plot_h, px(x), kTop + plot_h + 16, EscapeXml(label));
  }
  absl::StrAppendFormat(&s, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n", kLeft + plot_w / 2,
                        kHeight - 8, EscapeXml(x_label));
  std::vector<std::string> names;
  for (size_t i = 0; i < series.size(); ++i) {
    std::string pts;
    for (auto [x, y] : series[i].points) absl::StrAppendFormat(&pts, "%.1f,%.1f ", px(x), py(y));
    absl::StrAppendFormat(&s, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>\n",
                          Color(i), pts);
    names.push_back(series[i].name);
  }
  absl::StrAppend(&s, Legend(names), "</svg>\n");
  return s;
}

std::string BarChartSvg(const std::string& title, const std::string& y_label, const std::vector<std::string>& kinds,
                        const std::vector<BarGroup>& groups, int decimals) {
  double y_max = 0;
  for (const BarGroup& g : groups) {
    for (const auto& v : g.values) y_max = std::max(y_max, v.value_or(0));
    for (auto [lo, hi] : g.ranges) y_max = std::max(y_max, hi);
  }
  y_max = NiceMax(y_max);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double group_w = plot_w / std::max<size_t>(1, groups.size());
  const double bar_w = group_w * 0.8 / std::max<size_t>(1, kinds.size());
  auto py = [&](double y) { return kTop + plot_h - plot_h * y / y_max; };
  std::string s = Frame(title, y_label, y_max, DecimalsFor(y_max));
  for (size_t g = 0; g < groups.size(); ++g) {
    const double gx = kLeft + group_w * static_cast<double>(g) + group_w * 0.1;
    absl::StrAppendFormat(&s, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n", gx + group_w * 0.4,
                          kTop + plot_h + 16, EscapeXml(groups[g].label));
    for (size_t k = 0; k < kinds.size() && k < groups[g].values.size(); ++k) {
      const double x = gx + bar_w * static_cast<double>(k);
      const std::optional<double> v = groups[g].values[k];
      if (!v) {
        absl::StrAppendFormat(&s, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\" fill=\"#888\">n/a</text>\n",
                              x + bar_w / 2, kTop + plot_h - 4);
        continue;
      }
      absl::StrAppendFormat(&s,
                            "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                            "<title>%s %s: %.*f</title></rect>\n"
                            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%.*f</text>\n",
                            x, py(*v), bar_w * 0.92, kTop + plot_h - py(*v), Color(k), EscapeXml(groups[g].label),
                            EscapeXml(kinds[k]), decimals, *v, x + bar_w * 0.46, py(*v) - 4, decimals, *v);
      if (k < groups[g].ranges.size()) {
        auto [lo, hi] = groups[g].ranges[k];
        const double cx = x + bar_w * 0.46;
        absl::StrAppendFormat(&s,
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>"
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>"
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n",
                              cx, py(lo), cx, py(hi), cx - 5, py(lo), cx + 5, py(lo), cx - 5, py(hi), cx + 5, py(hi));
      }
    }
  }
  if (kinds.size() > 1) absl::StrAppend(&s, Legend(kinds));
  absl::StrAppend(&s, "</svg>\n");
  return s;
}

std::string EscapeXml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace reco
