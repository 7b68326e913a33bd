#include "client/report/report_renderers.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "client/report/report_charts.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

// Two targets, two rounds; the second target has no stats service.
RunReport SampleReport() {
  RunReport r;
  r.options.targets = {{"heap", "127.0.0.1:1"}, {"arena", "127.0.0.1:2"}};
  r.options.rounds = 2;
  r.environment = CurrentEnvironment("reco_load --target ...");
  for (int t = 0; t < 2; ++t) {
    TargetResult tr;
    tr.spec = r.options.targets[t];
    for (int round = 1; round <= 2; ++round) {
      RoundResult rr;
      rr.round = round;
      rr.client.seconds = 1;
      rr.client.ok = rr.client.completed = rr.client.sent = 1000 * (t + 1) + round;
      for (int i = 1; i <= 1000; ++i) rr.client.latency.Record(i * 1000 * (t + 1));
      if (t == 0) {
        rr.server.available = true;
        rr.server.rpcs = 1000;
        rr.server.build.allocations.allocs = 7322000;
        rr.server.build.latency.RecordN(20000, 1000);  // release stays unmeasured: n/a
        rr.server.malloc = "glibc";
      } else {
        rr.server = UnavailableServerFigures("the target has no reco.v1.ServerStats service");
      }
      tr.client.Merge(rr.client);
      tr.server.Merge(rr.server);
      tr.rounds.push_back(rr);
    }
    r.targets.push_back(tr);
  }
  return r;
}

TEST(RenderJson, HoldsFiguresParametersAndEnvironment) {
  nlohmann::json doc = nlohmann::json::parse(RenderJson(SampleReport()));
  EXPECT_EQ(doc["parameters"]["baseline"], "heap");
  EXPECT_EQ(doc["environment"]["grpc_version"].get<std::string>().empty(), false);
  ASSERT_EQ(doc["targets"].size(), 2u);
  const auto& heap = doc["targets"][0];
  EXPECT_DOUBLE_EQ(heap["figures"]["qps"].get<double>(), (1001 + 1002) / 2.0);
  EXPECT_DOUBLE_EQ(heap["figures"]["server_build_allocs_per_rpc"].get<double>(), 7322.0);
  EXPECT_EQ(heap["rounds"].size(), 2u);
  EXPECT_TRUE(doc["targets"][1]["figures"]["server_build_allocs_per_rpc"].is_null());
  EXPECT_TRUE(heap["figures"]["server_release_frees_per_rpc"].is_null());
  EXPECT_NEAR(heap["figures"]["server_build_p99_us"].get<double>(), 20.0, 0.2);
  EXPECT_EQ(doc["targets"][1]["server"]["available"], false);
  double p50 = heap["figures"]["latency_p50_ms"], p99 = heap["figures"]["latency_p99_ms"];
  EXPECT_NEAR(p50, 0.5, 0.01);
  EXPECT_NEAR(p99, 0.99, 0.01);
}

// The paths of the string values in `j` that hold an integer ("15677").
void IntegersAsStrings(const nlohmann::json& j, const std::string& path, std::vector<std::string>* out) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (!s.empty() && s.find_first_not_of("-0123456789") == std::string::npos) out->push_back(path);
  }
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) IntegersAsStrings(value, path + "/" + key, out);
  }
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) IntegersAsStrings(j[i], path + "/" + std::to_string(i), out);
  }
}

// Protobuf's JSON prints a 64-bit integer as a string, which breaks a consumer doing
// arithmetic (scripts sum "ok" and "sum_ns"); proto/load_report.proto keeps every
// count a JSON number, except the seed (any uint64, kept exact).
TEST(RenderJson, CountsAreJsonNumbers) {
  RunReport r = SampleReport();
  r.options.rate = 1000;  // open loop: every histogram is written
  for (TargetResult& t : r.targets) t.rounds[0].window_start_unix_ms = 1'764'583'200'000;
  const nlohmann::json doc = nlohmann::json::parse(RenderJson(r));
  std::vector<std::string> strings;
  IntegersAsStrings(doc, "", &strings);
  EXPECT_EQ(strings, std::vector<std::string>{"/parameters/seed"});
  EXPECT_TRUE(doc["targets"][0]["client"]["latency"]["sum_ns"].is_number());
  EXPECT_TRUE(doc["targets"][0]["rounds"][0]["window_start_unix_ms"].is_number());
}

TEST(RenderCsv, OneRowPerTargetAndRoundPlusTotalsAndRatios) {
  std::string csv = RenderCsv(SampleReport());
  std::vector<std::string> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u + 2 * (2 + 1 + 3));  // per target: 2 rounds, all, ratio median/min/max
  EXPECT_EQ(lines[0].rfind("target,address,round,qps,", 0), 0u) << lines[0];
  EXPECT_EQ(lines[3].rfind("heap,127.0.0.1:1,all,1002,", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("heap,127.0.0.1:1,ratio_median,1.0000,", 0), 0u) << lines[4];
  EXPECT_EQ(lines[0].find("qps_share_of_ceiling"), std::string::npos) << "no ceiling, no share column";
}

// The words after `label` on the table row that starts with it (the label's own
// spaces would split it); empty when there is no such row.
std::vector<std::string> RowWords(const std::string& table, const std::string& label) {
  for (absl::string_view line : absl::StrSplit(table, '\n')) {
    if (absl::StartsWith(line, label)) return absl::StrSplit(line.substr(label.size()), ' ', absl::SkipEmpty());
  }
  return {};
}

TEST(RenderTable, ShowsTargetsRatiosAndSpread) {
  const std::string table = RenderTable(SampleReport());
  using Words = std::vector<std::string>;
  // Targets as columns, the baseline first: the header row names them in order, and
  // each row holds heap's value, then arena's with its paired ratio to heap's (twice
  // heap's QPS in both rounds: 2001/1001, 2002/1002).
  const std::vector<std::string> lines = absl::StrSplit(table, '\n');
  ASSERT_GT(lines.size(), 2u) << table;
  EXPECT_EQ(RowWords(lines[1], ""), (Words{"heap", "arena"})) << table;
  EXPECT_EQ(RowWords(table, "QPS (OK responses/s)"), (Words{"1002", "2002", "(x2.00", "[2.00-2.00])"})) << table;
  EXPECT_EQ(RowWords(table, "QPS min-max over rounds"), (Words{"1001-1002", "2001-2002"})) << table;
  // arena has no stats service: its server side is n/a, heap's is not.
  EXPECT_EQ(RowWords(table, "build allocs/RPC"), (Words{"7322.0", "n/a"})) << table;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RenderHtml, IsSelfContainedWithSixCharts) {
  std::string html = RenderHtml(SampleReport());
  EXPECT_EQ(Count(html, "<svg"), 6u);
  for (const char* id : kReportChartIds) {
    EXPECT_EQ(Count(html, absl::StrCat("class=\"chart\" id=\"", id, "\"")), 1u) << id;
  }
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_NE(html.find("white-space:nowrap"), std::string::npos) << "ratio cells must not wrap";
}

// The answer first: the verdict, then the charts, then the warnings folded under one line.
TEST(RenderHtml, VerdictThenChartsThenFoldedWarnings) {
  RunReport r = SampleReport();
  r.warnings = {"arena: server-side figures unavailable", "heap: something else"};
  for (TargetResult& t : r.targets) {  // other processes at 5% of 2 CPUs; arena's server CPU unknown
    for (RoundResult& round : t.rounds) {
      round.machine =
          MachineWindowOf(0.0, 2.1, 1, 2, 1.0, t.server.available ? std::optional<double>(1.0) : std::nullopt);
    }
  }
  const std::string html = RenderHtml(r);
  const size_t verdict = html.find(
      "<li class=\"verdict-line\">arena: server CPU per RPC not served (the target has "
      "no reco.v1.ServerStats service), x2.00 [2.00-2.00] QPS</li>");
  const size_t first_chart = html.find("<svg"), last_chart = html.rfind("</svg>");
  const size_t warnings = html.find(
      "<details class=\"warnings\" id=\"warnings\"><summary class=\"warn\">2 warnings, "
      "the first: arena: server-side figures unavailable</summary>");
  const size_t noise = html.find(
      "<li class=\"verdict-noise\">noise guard: 0 of 2 measured rounds disturbed (other processes stayed within "
      "10% of the machine's CPU); 2 not judged: arena's server reports no CPU (no reco.v1.ServerStats)</li>");
  ASSERT_NE(verdict, std::string::npos) << html;
  ASSERT_NE(warnings, std::string::npos) << html;
  ASSERT_NE(noise, std::string::npos) << html;
  EXPECT_LT(verdict, noise);
  EXPECT_LT(noise, first_chart);
  EXPECT_LT(last_chart, warnings);
  EXPECT_EQ(Count(html, "<li>heap: something else</li>"), 1u);
}

TEST(RenderHtml, AChartWithoutFiguresIsOneLine) {
  RunReport r = SampleReport();
  r.targets[0].server = UnavailableServerFigures("a snapshot failed");  // now no target has server figures
  const std::string html = RenderHtml(r);
  EXPECT_EQ(Count(html, "<svg"), 3u) << "latency, QPS and QPS per round stay";
  EXPECT_NE(
      html.find("<p class=\"absent\">Not drawn, no target served their figures (heap: a snapshot failed): "
                "<span class=\"absent\" id=\"chart-server-cpu\"><b>Server CPU per RPC (lower is better)</b></span>, "
                "<span class=\"absent\" id=\"chart-allocs\">"),
      std::string::npos)
      << html;
  EXPECT_EQ(Count(html, "<span class=\"absent\" id=\"chart-"), 3u) << "CPU, allocations, phases";
  EXPECT_EQ(Count(html, "a snapshot failed"), 1u) << "the reason once in the charts";
}

// A figure no target reported is not a row of n/a: one line names the rows left out,
// in the table and on the page; a phase no target measured draws no bars.
TEST(RenderAll, RowsNoTargetReportedAreLeftOutAndNamedOnce) {
  const RunReport r = SampleReport();  // heap measured build but no release; arena has no server figures
  const std::string table = RenderTable(r);
  EXPECT_EQ(table.find("\nrelease p99 (us) "), std::string::npos) << table;
  EXPECT_NE(table.find("\nbuild p99 (us) "), std::string::npos) << table;
  const size_t left = table.find("\nleft out, no target reported them: ");
  ASSERT_NE(left, std::string::npos) << table;
  const std::string line = table.substr(left + 1, table.find('\n', left + 1) - left - 1);
  EXPECT_NE(line.find("release p99 (us)"), std::string::npos) << line;
  EXPECT_NE(line.find("serialize p99 (us)"), std::string::npos) << line;
  const std::string html = RenderHtml(r);
  EXPECT_EQ(html.find("<td>release p99 (us)</td>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"left-out\">left out, no target reported them: "), std::string::npos);
  const size_t phases = html.find("id=\"chart-phases\"");
  ASSERT_NE(phases, std::string::npos);
  const std::string chart = html.substr(phases, html.find("</svg>", phases) - phases);
  EXPECT_NE(chart.find("build p99"), std::string::npos) << chart;
  EXPECT_EQ(chart.find("release p99"), std::string::npos) << "a group no target measured: " << chart;
}

// The summary for time-series stores: every figure with a value per target, the paired
// ratios per other target, the run's name and tags as labels; the figures match the
// JSON's.
TEST(RenderSeries, PrometheusTextAndInfluxLinesCarryTheJsonsFigures) {
  RunReport r = SampleReport();
  r.options.name = "nightly";
  r.options.tags = {{"env", "ci \"a\""}};
  const nlohmann::json doc = nlohmann::json::parse(RenderJson(r));
  const double qps = doc["targets"][0]["figures"]["qps"].get<double>();
  const std::string prom = RenderPrometheus(r);
  EXPECT_NE(prom.find("# TYPE reco_load_figure gauge\n"), std::string::npos) << prom;
  EXPECT_NE(
      prom.find(absl::StrCat("reco_load_figure{run=\"nightly\",env=\"ci \\\"a\\\"\",target=\"heap\",figure=\"qps\"} ",
                             absl::StrFormat("%.9g", qps), "\n")),
      std::string::npos)
      << prom;
  const double median = doc["targets"][1]["ratios_to_baseline"]["qps"]["median"].get<double>();
  EXPECT_NE(prom.find(absl::StrCat("target=\"arena\",baseline=\"heap\",figure=\"qps\",stat=\"median\"} ",
                                   absl::StrFormat("%.9g", median), "\n")),
            std::string::npos)
      << prom;
  EXPECT_EQ(prom.find("figure=\"release_p99_us\""), std::string::npos) << "n/a figures are not written";
  const std::string influx = RenderInflux(r, 1765000000000000000);
  EXPECT_EQ(Count(influx, "\n"), 2u) << influx;  // a point per target
  EXPECT_NE(
      influx.find(absl::StrCat("reco_load,target=heap,run=nightly,env=ci\\ \"a\" qps=", absl::StrFormat("%.9g", qps))),
      std::string::npos)
      << influx;
  EXPECT_NE(influx.find(" 1765000000000000000\n"), std::string::npos) << influx;
}

// The second target reports mode "ceiling": every target's QPS shows as its share.
TEST(RenderAll, ShowQpsShareOfTheCeiling) {
  RunReport r = SampleReport();
  EXPECT_EQ(r.CeilingIndex(), -1);
  EXPECT_EQ(RenderTable(r).find("share of ceiling"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(RenderJson(r))["targets"][0]["qps_share_of_ceiling"].is_null());

  r.targets[1].server.available = true;
  r.targets[1].server.mode = "ceiling";
  ASSERT_EQ(r.CeilingIndex(), 1);
  nlohmann::json doc = nlohmann::json::parse(RenderJson(r));
  EXPECT_EQ(doc["parameters"]["ceiling"], "arena");
  // heap: 2003 OK in 2 s; the ceiling: 4003 in 2 s.
  EXPECT_NEAR(doc["targets"][0]["qps_share_of_ceiling"].get<double>(), 2003.0 / 4003.0, 1e-9);
  EXPECT_DOUBLE_EQ(doc["targets"][1]["qps_share_of_ceiling"].get<double>(), 1.0);
  std::string table = RenderTable(r);
  size_t row = table.find("QPS share of ceiling");
  ASSERT_NE(row, std::string::npos) << table;
  std::string line = table.substr(row, table.find('\n', row) - row);
  // Per round: 1001/2001 and 1002/2002, both 50%.
  EXPECT_NE(line.find("50% [50-50]"), std::string::npos) << line;
  EXPECT_NE(line.find("100% [100-100]"), std::string::npos) << line;
  EXPECT_NE(RenderHtml(r).find("<td>QPS share of ceiling</td><td>50% [50-50]</td><td>100% [100-100]</td>"),
            std::string::npos);
  const auto& paired = doc["targets"][0]["share_of_ceiling"]["qps"];
  EXPECT_DOUBLE_EQ(paired["min"].get<double>(), 1001.0 / 2001.0);
  EXPECT_DOUBLE_EQ(paired["max"].get<double>(), 1002.0 / 2002.0);
  EXPECT_EQ(paired["rounds"], 2);
}

// heap (the baseline), arena and reuse, one OK response per QPS in 1-second rounds;
// the server answered as many RPCs, except where a round's server side is n/a.
RunReport QpsReport(const std::vector<std::vector<std::optional<double>>>& qps) {
  const char* const kNames[] = {"heap", "arena", "reuse"};
  RunReport r;
  r.options.rounds = static_cast<int>(qps[0].size());
  for (size_t t = 0; t < qps.size(); ++t) {
    TargetResult tr;
    tr.spec = {kNames[t], "127.0.0.1:" + std::to_string(t + 1)};
    r.options.targets.push_back(tr.spec);
    for (size_t k = 0; k < qps[t].size(); ++k) {
      RoundResult rr;
      rr.round = static_cast<int>(k + 1);
      rr.client.seconds = 1;
      const double q = qps[t][k].value_or(qps[t][0].value_or(1));
      rr.client.ok = rr.client.completed = rr.client.sent = static_cast<uint64_t>(q);
      if (qps[t][k]) {
        rr.server.available = true;
        rr.server.rpcs = static_cast<uint64_t>(q);
      } else {
        rr.server = UnavailableServerFigures("a snapshot failed");
      }
      tr.client.Merge(rr.client);
      tr.server.Merge(rr.server);
      tr.rounds.push_back(rr);
    }
    r.targets.push_back(tr);
  }
  return r;
}

std::string Line(const std::string& text, const std::string& starting) {
  size_t at = text.find("\n" + starting);
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

TEST(PairedRatios, MedianAndSpreadOfThreeRoundsInEveryRenderer) {
  // arena/heap per round: 1.1, 1.5, 1.2; reuse/heap: 0.95, 1.10, 1.04 (crosses 1).
  RunReport r = QpsReport({{1000, 1000, 1000}, {1100, 1500, 1200}, {950, 1100, 1040}});
  const std::string table = RenderTable(r);
  const std::string qps = Line(table, "QPS (OK");
  EXPECT_NE(qps.find("1267 (x1.20 [1.10-1.50])"), std::string::npos) << table;
  EXPECT_NE(qps.find("1030 (~1 [0.95-1.10])"), std::string::npos) << table;
  EXPECT_NE(table.find("\nratios to heap: xM [min-max] = median of the 3 per-round ratios"), std::string::npos)
      << table;
  EXPECT_NE(table.find("~1 = the spread includes 1: no measurable difference"), std::string::npos) << table;
  EXPECT_EQ(table.find("* = over fewer rounds"), std::string::npos) << table;

  nlohmann::json doc = nlohmann::json::parse(RenderJson(r));
  const auto& arena = doc["targets"][1]["ratios_to_baseline"]["qps"];
  EXPECT_DOUBLE_EQ(arena["median"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(arena["min"].get<double>(), 1.1);
  EXPECT_DOUBLE_EQ(arena["max"].get<double>(), 1.5);
  EXPECT_EQ(arena["rounds"], 3);
  EXPECT_EQ(arena["skipped"], 0);
  EXPECT_EQ(arena["measurable"], true);
  EXPECT_EQ(doc["targets"][2]["ratios_to_baseline"]["qps"]["measurable"], false);
  EXPECT_TRUE(doc["targets"][1]["ratios_to_baseline"]["errors"].is_null());  // heap's errors are 0
  EXPECT_TRUE(doc["targets"][1]["share_of_ceiling"].is_null());              // no ceiling

  EXPECT_NE(RenderHtml(r).find("1267 <span class=\"ratio\">x1.20 [1.10-1.50]</span>"), std::string::npos);

  std::vector<std::string> csv = absl::StrSplit(RenderCsv(r), '\n', absl::SkipEmpty());
  ASSERT_EQ(csv.size(), 1u + 3 * (3 + 1 + 3));  // per target: 3 rounds, all, ratio median/min/max
  EXPECT_EQ(csv[12].rfind("arena,127.0.0.1:2,ratio_median,1.2000,", 0), 0u) << csv[12];
  EXPECT_EQ(csv[13].rfind("arena,127.0.0.1:2,ratio_min,1.1000,", 0), 0u) << csv[13];
  EXPECT_EQ(csv[14].rfind("arena,127.0.0.1:2,ratio_max,1.5000,", 0), 0u) << csv[14];
}

TEST(PairedRatios, RoundsWithAnNaValueAreLeftOutAndMarked) {
  // arena's server side is n/a in round 2: server RPCs pair in rounds 1 and 3 only.
  RunReport r = QpsReport({{1000, 1000, 1000}, {1100, std::nullopt, 1200}});
  const std::string table = RenderTable(r);
  EXPECT_NE(Line(table, "server RPCs").find("(x1.15 [1.10-1.20]*)"), std::string::npos) << table;
  EXPECT_NE(table.find("* = over fewer rounds: a round where either value was n/a"), std::string::npos) << table;
  nlohmann::json doc = nlohmann::json::parse(RenderJson(r));
  const auto& rpcs = doc["targets"][1]["ratios_to_baseline"]["server_rpcs"];
  EXPECT_EQ(rpcs["rounds"], 2);
  EXPECT_EQ(rpcs["skipped"], 1);
  EXPECT_DOUBLE_EQ(rpcs["median"].get<double>(), 1.15);
}

TEST(PairedRatios, OneRoundShowsTheRatioWithoutSpread) {
  RunReport r = QpsReport({{1000}, {1430}});
  const std::string table = RenderTable(r);
  EXPECT_NE(Line(table, "QPS (OK").find("1430 (x1.43)"), std::string::npos) << table;
  EXPECT_NE(table.find("\nratios to heap: 1 round: no spread\n"), std::string::npos) << table;
  nlohmann::json doc = nlohmann::json::parse(RenderJson(r));
  EXPECT_EQ(doc["targets"][1]["ratios_to_baseline"]["qps"]["rounds"], 1);
  EXPECT_EQ(doc["targets"][1]["ratios_to_baseline"]["qps"]["measurable"], false);
}

TEST(NoiseGuard, OtherProcessesCpuPerRoundInTheReports) {
  RunReport r = QpsReport({{1000, 1000}, {1100, 1200}});
  // heap round 2: busy 7.0 CPU s of 2 x 4 s, client 1.0, server 3.2: others 2.8 = 35%.
  for (TargetResult& t : r.targets) {
    for (RoundResult& round : t.rounds) {
      round.machine = MachineWindowOf(0.0, t.spec.name == "heap" && round.round == 2 ? 7.0 : 4.6, 4, 2, 1.0, 3.2);
      t.machine.Merge(round.machine);
    }
  }
  nlohmann::json doc = nlohmann::json::parse(RenderJson(r));
  const auto& heap = doc["targets"][0];
  EXPECT_EQ(heap["disturbed_rounds"], nlohmann::json::array({2}));
  EXPECT_EQ(heap["rounds"][1]["machine"]["disturbed"], true);
  EXPECT_EQ(heap["rounds"][0]["machine"]["disturbed"], false);
  EXPECT_NEAR(heap["rounds"][1]["figures"]["machine_other_cpu_percent"].get<double>(), 35.0, 1e-9);
  EXPECT_NEAR(heap["figures"]["machine_other_cpu_percent"].get<double>(), 3.2 / 16 * 100, 1e-9);
  EXPECT_EQ(doc["targets"][1]["disturbed_rounds"], nlohmann::json::array());
  // What other processes did is no property of a target: no ratio to the baseline.
  EXPECT_TRUE(doc["targets"][1]["ratios_to_baseline"]["machine_other_cpu_percent"].is_null());
  EXPECT_DOUBLE_EQ(doc["noise_guard"]["disturbed_other_cpu_share"].get<double>(), 0.10);
  EXPECT_NE(Line(RenderTable(r), "other processes' CPU (% of machine)").find(" 20.0 "), std::string::npos)
      << RenderTable(r);
}

}  // namespace
}  // namespace reco
