// See svg_chart.h.
#include "client/report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace reco {
namespace {

// Two charts side by side fit a 1,400 px wide window; the right margin holds the legend.
constexpr double kWidth = 660, kHeight = 300;
constexpr double kLeft = 64, kRight = 150, kTop = 34, kBottom = 46;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr double kDigitWidth = 6;  // px of a digit at font-size 10, a little generous
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};

// A "nice" upper bound for an axis (1, 2, 2.5 or 5 times a power of ten).
double NiceMax(double v) {
  if (v <= 0) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (v <= m * p) return m * p;
  }
  return 10 * p;
}

int DecimalsFor(double max) { return max >= 10 ? 0 : max >= 1 ? 1 : 2; }

// The y axis: its ticks from bottom to top, and where a value lands.
struct YAxis {
  bool log = false;
  std::vector<double> ticks;
  int decimals = 0;  // of a linear axis' labels

  double Pixel(double y) const {
    const double lo = ticks.front(), hi = ticks.back();
    const double f = log ? (std::log10(y) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (y - lo) / (hi - lo);
    return kTop + kPlotH - kPlotH * f;
  }
  std::string Label(double tick) const {
    return log ? absl::StrFormat("%g", tick) : absl::StrFormat("%.*f", decimals, tick);
  }
};

YAxis LinearAxis(double max) {
  YAxis a;
  const double top = NiceMax(max);
  for (int i = 0; i <= 5; ++i) a.ticks.push_back(top * i / 5);
  a.decimals = DecimalsFor(top);
  return a;
}

YAxis LogAxis(double lo, double hi) { return {true, LogTicks(lo, hi > 0 ? hi : 1), 0}; }

std::string Frame(const ChartFrame& frame, const YAxis& y) {
  std::string s = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" role=\"img\" aria-label=\"%s\" "
      "width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%g\" y=\"21\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
      EscapeXml(frame.id), EscapeXml(frame.title), kWidth, kHeight, kWidth, kHeight, kLeft, EscapeXml(frame.title));
  for (double tick : y.ticks) {
    const double py = y.Pixel(tick);
    absl::StrAppendFormat(&s,
                          "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                          kLeft, py, kLeft + kPlotW, py, kLeft - 6, py + 4, y.Label(tick));
  }
  absl::StrAppendFormat(&s,
                        "<text transform=\"translate(16,%g) rotate(-90)\" text-anchor=\"middle\">%s%s</text>\n"
                        "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#333\"/>\n",
                        kTop + kPlotH / 2, EscapeXml(frame.y_label), y.log ? " (log scale)" : "", kLeft, kTop + kPlotH,
                        kLeft + kPlotW, kTop + kPlotH);
  return s;
}

std::string Legend(const std::vector<std::string>& names) {
  std::string s = "<g class=\"legend\">";
  for (size_t i = 0; i < names.size(); ++i) {
    double y = kTop + 10 + 18 * static_cast<double>(i);
    absl::StrAppendFormat(&s,
                          "<rect x=\"%g\" y=\"%g\" width=\"14\" height=\"10\" fill=\"%s\"/>"
                          "<text x=\"%g\" y=\"%g\">%s</text>\n",
                          kLeft + kPlotW + 14, y - 9, SeriesColor(i), kLeft + kPlotW + 34, y, EscapeXml(names[i]));
  }
  return s + "</g>\n";
}

// The y range a line chart's points need: (smallest positive y, largest y).
std::pair<double, double> YRange(const std::vector<LineSeries>& series) {
  double lo = 0, hi = 0;
  for (const LineSeries& s : series) {
    for (auto [x, y] : s.points) {
      if (y > 0 && (lo == 0 || y < lo)) lo = y;
      hi = std::max(hi, y);
    }
  }
  return {lo, hi};
}

std::string SeriesSvg(const LineSeries& series, const char* color, const YAxis& y, bool markers,
                      const std::function<double(double)>& px) {
  std::string pts, dots;
  for (auto [x, v] : series.points) {
    if (y.log && v <= 0) continue;
    absl::StrAppendFormat(&pts, "%.1f,%.1f ", px(x), y.Pixel(v));
    if (markers) {
      absl::StrAppendFormat(&dots, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>", px(x),
                            y.Pixel(v), color);
    }
  }
  return absl::StrFormat(
      "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"><title>%s</title>"
      "</polyline>%s\n",
      color, pts, EscapeXml(series.name), dots);
}

std::string Whisker(double cx, double lo_px, double hi_px) {
  return absl::StrFormat(
      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>"
      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>"
      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n",
      cx, lo_px, cx, hi_px, cx - 5, lo_px, cx + 5, lo_px, cx - 5, hi_px, cx + 5, hi_px);
}

// Series k's bar of group g, with its value above it (or "n/a") and its whisker.
std::string Bar(const BarGroup& g, size_t k, const std::string& name, double x, double bar_w, const YAxis& y,
                int decimals) {
  const std::optional<double> v = k < g.values.size() ? g.values[k] : std::nullopt;
  const double cx = x + bar_w * 0.46, base = kTop + kPlotH;
  const bool whisker = v && k < g.ranges.size();
  const double label_y = y.Pixel(whisker ? std::max(*v, g.ranges[k].second) : v.value_or(0)) - 4;  // above both
  if (!v) {  // upright, so that it fits a narrow bar's width
    return absl::StrFormat(
        "<text x=\"%.1f\" y=\"%g\" transform=\"rotate(-90 %.1f %g)\" dy=\"4\" fill=\"#888\" font-size=\"10\">"
        "n/a</text>\n",
        cx, base - 4, cx, base - 4);
  }
  std::string s = absl::StrFormat(
      "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
      "<title>%s %s: %.*f</title></rect>\n",
      x, y.Pixel(*v), bar_w * 0.92, base - y.Pixel(*v), SeriesColor(k), EscapeXml(name), EscapeXml(g.label), decimals,
      *v);
  // A value wider than its bar would run into its neighbour's: the table holds it, the tooltip too.
  const std::string value = absl::StrFormat("%.*f", decimals, *v);
  if (value.size() * kDigitWidth <= bar_w) {
    absl::StrAppendFormat(&s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%s</text>\n", cx,
                          label_y, value);
  }
  if (whisker) s += Whisker(cx, y.Pixel(g.ranges[k].first), y.Pixel(g.ranges[k].second));
  return s;
}

double BarsMax(const std::vector<BarGroup>& groups) {
  double max = 0;
  for (const BarGroup& g : groups) {
    for (const auto& v : g.values) max = std::max(max, v.value_or(0));
    for (auto [lo, hi] : g.ranges) max = std::max(max, hi);
  }
  return max;
}

}  // namespace

const char* SeriesColor(size_t i) { return kColors[i % (sizeof(kColors) / sizeof(kColors[0]))]; }

double NinesX(double percentile) {
  double tail = 1 - std::min(percentile, 99.999) / 100;
  return std::log10(1 / tail);
}

AxisTicks NinesAxis() {
  return {{NinesX(50), "p50"}, {NinesX(90), "p90"}, {NinesX(99), "p99"}, {NinesX(99.9), "p99.9"}};
}

std::vector<double> LogTicks(double lo, double hi) {
  if (lo <= 0) lo = hi / 10;
  const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi)));
  const bool decades_only = std::log10(hi / lo) > 2;  // 1-2-5 steps over more would crowd the axis
  std::vector<double> all;
  for (int d = first; d <= last; ++d) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m == 1.0 || !decades_only) all.push_back(m * std::pow(10, d));
    }
  }
  // The largest tick <= lo, up to the smallest >= hi (a relative tolerance: pow's rounding).
  auto below = std::find_if(all.rbegin(), all.rend(), [lo](double t) { return t <= lo * (1 + 1e-9); });
  auto above = std::find_if(all.begin(), all.end(), [hi](double t) { return t >= hi * (1 - 1e-9); });
  std::vector<double> ticks(below == all.rend() ? all.begin() : std::prev(below.base()),
                            above == all.end() ? all.end() : above + 1);
  if (ticks.size() == 1) ticks.push_back(ticks[0] * (decades_only ? 10 : 2));  // lo == hi == a tick: widen
  return ticks;
}

std::string LineChartSvg(const LineChart& chart, const std::vector<LineSeries>& series) {
  const AxisTicks& xt = chart.x_ticks;
  double x_min = xt.empty() ? 0 : xt.front().first, x_max = xt.empty() ? 1 : xt.back().first;
  if (x_max <= x_min) std::tie(x_min, x_max) = std::make_pair(x_min - 0.5, x_min + 0.5);  // one tick: centred
  const auto [lo, hi] = YRange(series);
  const YAxis y = chart.log_y ? LogAxis(lo, hi) : LinearAxis(hi);
  auto px = [&](double x) { return kLeft + kPlotW * (x - x_min) / (x_max - x_min); };
  std::string s = Frame(chart.frame, y);
  for (const auto& [x, label] : xt) {
    absl::StrAppendFormat(&s,
                          "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#eee\"/>"
                          "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                          px(x), kTop, px(x), kTop + kPlotH, px(x), kTop + kPlotH + 16, EscapeXml(label));
  }
  absl::StrAppendFormat(&s, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n", kLeft + kPlotW / 2,
                        kHeight - 8, EscapeXml(chart.x_label));
  std::vector<std::string> names;
  for (size_t i = 0; i < series.size(); ++i) {
    s += SeriesSvg(series[i], SeriesColor(i), y, chart.markers, px);
    names.push_back(series[i].name);
  }
  return s + Legend(names) + "</svg>\n";
}

std::string BarChartSvg(const ChartFrame& frame, const std::vector<std::string>& series,
                        const std::vector<BarGroup>& groups, int decimals) {
  const YAxis y = LinearAxis(BarsMax(groups));
  const double group_w = kPlotW / std::max<size_t>(1, groups.size());
  const double bar_w = group_w * 0.8 / std::max<size_t>(1, series.size());
  const bool name_bars = groups.size() == 1;
  std::string s = Frame(frame, y);
  for (size_t g = 0; g < groups.size(); ++g) {
    const double gx = kLeft + group_w * static_cast<double>(g) + group_w * 0.1;
    if (!name_bars) {
      absl::StrAppendFormat(&s, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n", gx + group_w * 0.4,
                            kTop + kPlotH + 16, EscapeXml(groups[g].label));
    }
    for (size_t k = 0; k < series.size(); ++k) {
      const double x = gx + bar_w * static_cast<double>(k);
      s += Bar(groups[g], k, series[k], x, bar_w, y, decimals);
      if (name_bars) {
        // Slanted, ending under the bar's middle: long target names next to each
        // other would overlap level.
        const double lx = x + bar_w * 0.5, ly = kTop + kPlotH + 12;
        absl::StrAppendFormat(&s,
                              "<text x=\"%.1f\" y=\"%g\" transform=\"rotate(-20 %.1f %g)\" text-anchor=\"end\" "
                              "font-size=\"10\">%s</text>\n",
                              lx, ly, lx, ly, EscapeXml(series[k]));
      }
    }
  }
  return s + Legend(series) + "</svg>\n";
}

std::string EscapeXml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace reco
