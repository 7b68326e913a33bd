#include "client/report_renderers.h"

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

// Two targets, two rounds; the second target has no stats service.
RunReport SampleReport() {
  RunReport r;
  r.options.targets = {{"heap", "127.0.0.1:1"}, {"arena", "127.0.0.1:2"}};
  r.options.rounds = 2;
  r.environment = RunEnvironment::Current("reco_load --target ...");
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

TEST(RenderCsv, OneRowPerTargetAndRoundPlusTotals) {
  std::string csv = RenderCsv(SampleReport());
  std::vector<std::string> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u + 2 * 3);
  EXPECT_EQ(lines[0].rfind("target,address,round,qps,", 0), 0u) << lines[0];
  EXPECT_EQ(lines[3].rfind("heap,127.0.0.1:1,all,1002,", 0), 0u) << lines[3];
}

TEST(RenderTable, ShowsTargetsRatiosAndSpread) {
  std::string table = RenderTable(SampleReport());
  EXPECT_NE(table.find("heap"), std::string::npos);
  EXPECT_NE(table.find("(x2.00)"), std::string::npos) << table;  // arena's QPS is twice heap's
  EXPECT_NE(table.find("1001-1002"), std::string::npos) << table;
  EXPECT_NE(table.find("n/a"), std::string::npos) << table;
}

TEST(RenderHtml, IsSelfContainedWithThreeCharts) {
  std::string html = RenderHtml(SampleReport());
  size_t charts = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++charts;
  EXPECT_EQ(charts, 3u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
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
  EXPECT_NE(line.find("50%"), std::string::npos) << line;
  EXPECT_NE(line.find("100%"), std::string::npos) << line;
  EXPECT_NE(RenderHtml(r).find("<td>QPS share of ceiling</td><td>50%</td><td>100%</td>"), std::string::npos);
}

}  // namespace
}  // namespace reco
