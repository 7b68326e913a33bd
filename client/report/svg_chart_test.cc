#include "client/report/svg_chart.h"

#include <cmath>

#include "gtest/gtest.h"

namespace reco {
namespace {

// Ticks are products of pow(10, d): equal to within rounding.
void ExpectTicks(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size()) << "first " << (got.empty() ? 0 : got[0]);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], want[i] * 1e-12) << "tick " << i;
}

TEST(LogTicks, OneTwoFiveFromBelowTheLowestToAboveTheHighest) {
  ExpectTicks(LogTicks(0.3, 4), {0.2, 0.5, 1, 2, 5});
  ExpectTicks(LogTicks(0.2, 5), {0.2, 0.5, 1, 2, 5});  // bounds on a tick stay
  ExpectTicks(LogTicks(1100, 1900), {1000, 2000});
  ExpectTicks(LogTicks(1, 1), {1, 2});  // one value still gets an axis
}

TEST(LogTicks, PowersOfTenOnlyOverMoreThanTwoDecades) {
  ExpectTicks(LogTicks(0.05, 800), {0.01, 0.1, 1, 10, 100, 1000});
  ExpectTicks(LogTicks(0.5, 40), {0.5, 1, 2, 5, 10, 20, 50});
  ExpectTicks(LogTicks(0.05, 40), {0.01, 0.1, 1, 10, 100});
  ExpectTicks(LogTicks(0, 40), {2, 5, 10, 20, 50});  // no positive low: a decade under the high
}

// Where the chart prints a y tick's label: the y of `<text ... y="Y" text-anchor="end">LABEL</text>`.
double LabelY(const std::string& svg, const std::string& label) {
  const std::string tail = "\" text-anchor=\"end\">" + label + "</text>";
  const size_t end = svg.find(tail);
  if (end == std::string::npos) return NAN;
  const size_t start = svg.rfind("y=\"", end) + 3;
  return std::stod(svg.substr(start, end - start));
}

TEST(LineChartSvg, LogAxisSpacesEachDecadeEqually) {
  LineChart chart{{"chart-x", "Latency", "ms"}, "percentile", NinesAxis(), /*log_y=*/true};
  const std::string svg = LineChartSvg(chart, {{"heap", {{NinesX(50), 0.1}, {NinesX(99.9), 10}}}});
  const double y01 = LabelY(svg, "0.1"), y1 = LabelY(svg, "1"), y10 = LabelY(svg, "10");
  EXPECT_DOUBLE_EQ(y01 - y1, y1 - y10) << svg;  // 0.1 -> 1 as tall as 1 -> 10
  EXPECT_GT(y01, y10) << "values grow upwards";
  EXPECT_NEAR((y01 - LabelY(svg, "2")) / (y01 - y1), 1 + std::log10(2), 0.01) << svg;
  EXPECT_NE(svg.find("ms (log scale)"), std::string::npos);
  EXPECT_NE(svg.find("id=\"chart-x\" role=\"img\" aria-label=\"Latency\""), std::string::npos) << svg;
}

TEST(BarChartSvg, EachSeriesKeepsItsColourInEveryGroup) {
  const std::string svg = BarChartSvg({"chart-p", "Phases", "us"}, {"heap", "arena"},
                                      {{"build", {10.0, 5.0}, {}}, {"serialize", {std::nullopt, 4.0}, {}}}, 0);
  auto count = [&svg](const std::string& s) {
    size_t n = 0;
    for (size_t at = svg.find(s); at != std::string::npos; at = svg.find(s, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(std::string("fill=\"") + SeriesColor(0) + "\"><title>heap"), 1u) << svg;  // its n/a is text
  EXPECT_EQ(count(std::string("fill=\"") + SeriesColor(1) + "\"><title>arena"), 2u) << svg;
  EXPECT_EQ(count(">n/a</text>"), 1u) << svg;
  EXPECT_EQ(count("<g class=\"legend\">"), 1u) << svg;
}

}  // namespace
}  // namespace reco
