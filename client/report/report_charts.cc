// See report_charts.h.
#include "client/report/report_charts.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/report/report_figures.h"
#include "client/report/svg_chart.h"

namespace reco {
namespace {

// Points of a smooth latency curve from p50 to p99.9 (the report's percentiles).
constexpr double kCurve[] = {50, 60, 70, 75, 80, 85, 90, 92, 94, 95, 96, 97, 98, 99, 99.3, 99.5, 99.7, 99.8, 99.9};

std::vector<std::string> TargetNames(const RunReport& report) {
  std::vector<std::string> names;
  for (const TargetResult& t : report.targets) names.push_back(t.spec.name);
  return names;
}

// Each target's value of the figure `key` over the run (nullopt: n/a, or no such figure).
std::vector<std::optional<double>> FigureValues(const RunReport& report, const std::string& key) {
  std::vector<std::optional<double>> values(report.targets.size());
  for (const Figure& f : ReportFigures(report.options)) {
    if (f.key != key) continue;
    for (size_t i = 0; i < report.targets.size(); ++i) values[i] = f.Of(report.targets[i]);
  }
  return values;
}

bool AnyValue(const std::vector<BarGroup>& groups) {
  for (const BarGroup& g : groups) {
    for (const auto& v : g.values) {
      if (v) return true;
    }
  }
  return false;
}

// What stands in for a chart with nothing to draw: its title, under its id; the
// charts not drawn share one line that says why (ReportChartsHtml).
std::string AbsentTitle(const ChartFrame& frame) {
  return absl::StrCat("<span class=\"absent\" id=\"", frame.id, "\"><b>", EscapeXml(frame.title), "</b></span>");
}

// Why the charts not drawn have nothing: the first target whose server gave no figures.
std::string WhyAbsent(const RunReport& report) {
  for (const TargetResult& t : report.targets) {
    if (!t.server.available)
      return absl::StrCat("no target served their figures (", t.spec.name, ": ", t.server.note, ")");
  }
  return "no target has their figures";
}

// A bar chart of the groups some target has a value in (a phase no target measured
// draws no n/a bars), or its absent title.
std::string Bars(const RunReport& report, const ChartFrame& frame, const std::vector<BarGroup>& groups, int decimals) {
  std::vector<BarGroup> drawn;
  for (const BarGroup& g : groups) {
    if (AnyValue({g})) drawn.push_back(g);
  }
  return drawn.empty() ? AbsentTitle(frame) : BarChartSvg(frame, TargetNames(report), drawn, decimals);
}

std::string ServerCpuChart(const RunReport& report) {
  return Bars(report, {"chart-server-cpu", "Server CPU per RPC (lower is better)", "CPU per RPC (us)"},
              {{"", FigureValues(report, "server_cpu_us_per_rpc"), {}}}, 0);
}

std::string QpsChart(const RunReport& report) {
  BarGroup g{"", FigureValues(report, "qps"), {}};
  for (const TargetResult& t : report.targets) g.ranges.push_back(t.QpsRange());
  return Bars(report, {"chart-qps", "QPS (whiskers: min-max over rounds)", "OK responses per second"}, {g}, 0);
}

std::string AllocationChart(const RunReport& report) {
  std::vector<BarGroup> groups;
  for (auto [key, label] : {std::pair{"server_build_allocs_per_rpc", "build"},
                            std::pair{"server_process_allocs_per_rpc", "whole process"}}) {
    groups.push_back({label, FigureValues(report, key), {}});
  }
  return Bars(report, {"chart-allocs", "Server allocations per RPC", "allocations per RPC"}, groups, 0);
}

std::string PhaseChart(const RunReport& report) {
  std::vector<BarGroup> groups;
  for (auto [key, label] :
       {std::pair{"server_build_p99_us", "build p99"}, std::pair{"server_serialize_p99_us", "serialize p99"},
        std::pair{"server_release_p99_us", "release p99"}}) {
    groups.push_back({label, FigureValues(report, key), {}});
  }
  return Bars(report, {"chart-phases", "Server phases, p99 per RPC", "p99 (us)"}, groups, 0);
}

std::string LatencyChart(const RunReport& report) {
  std::vector<LineSeries> series;
  bool any = false;
  for (const TargetResult& t : report.targets) {
    LineSeries s{t.spec.name, {}};
    for (double p : kCurve) {
      if (t.client.latency.count() > 0) s.points.push_back({NinesX(p), t.client.latency.Percentile(p) / 1e6});
    }
    any |= !s.points.empty();
    series.push_back(std::move(s));
  }
  const char* title = report.options.open_loop() ? "Latency (from the scheduled send time)" : "Latency by percentile";
  LineChart chart{{"chart-latency", title, "latency (ms)"}, "percentile (each step adds a nine)", NinesAxis(), true};
  return any ? LineChartSvg(chart, series) : AbsentTitle(chart.frame);
}

std::string RoundQpsChart(const RunReport& report) {
  std::vector<LineSeries> series;
  AxisTicks rounds;
  for (const TargetResult& t : report.targets) {
    LineSeries s{t.spec.name, {}};
    for (const RoundResult& r : t.rounds) s.points.push_back({r.round, r.client.qps()});
    series.push_back(std::move(s));
  }
  for (int r = 1; r <= report.options.rounds; ++r) rounds.push_back({r, absl::StrCat("round ", r)});
  LineChart chart{{"chart-round-qps", "QPS of each round (targets interleaved)", "OK responses per second"},
                  "round (each target's round r ran back to back)",
                  rounds,
                  true,
                  true};
  return LineChartSvg(chart, series);
}

}  // namespace

std::string ReportChartsHtml(const RunReport& report) {
  std::string grid;
  std::vector<std::string> absent;
  for (const std::string& chart : {ServerCpuChart(report), QpsChart(report), AllocationChart(report),
                                   LatencyChart(report), RoundQpsChart(report), PhaseChart(report)}) {
    if (chart.rfind("<svg", 0) == 0) {
      absl::StrAppend(&grid, "<div class=\"cell\">", chart, "</div>\n");
    } else {
      absent.push_back(chart);
    }
  }
  std::string not_drawn;
  if (!absent.empty()) {
    not_drawn = absl::StrCat("<p class=\"absent\">Not drawn, ", EscapeXml(WhyAbsent(report)), ": ",
                             absl::StrJoin(absent, ", "), ".</p>\n");
  }
  return absl::StrCat("<div class=\"charts\">\n", grid, "</div>\n", not_drawn);
}

}  // namespace reco
