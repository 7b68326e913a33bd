// reco_server's Prometheus endpoint (--metrics_listen): its counts agree with
// reco.v1.ServerStats over the same calls, only grow across a stats reset, carry no
// label a request can choose, and the port survives hostile HTTP clients while the
// gRPC port keeps serving.
#include <unistd.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/request.h"
#include "server/metrics_endpoint.h"
#include "server/testing/metrics_scrape.h"
#include "server/testing/server_test_util.h"

namespace reco {
namespace {

using testing::CallRaw;
using testing::ChannelTo;
using testing::Connect;
using testing::Exchange;
using testing::MakeRequest;
using testing::Scrape;

std::unique_ptr<RecoServer> StartWithMetrics(ServingMode mode, std::vector<std::string> allow = {}) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.metrics_listen = "127.0.0.1:0";
  options.metrics_allow = std::move(allow);
  options.mode = mode;
  options.allow_stats_reset = true;
  auto server = RecoServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  if (!server.ok()) return nullptr;
  EXPECT_NE((*server)->metrics_port(), 0);
  return std::move(*server);
}

v1::StatsSnapshot GetStats(grpc::Channel* channel, bool reset) {
  auto stub = v1::ServerStats::NewStub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  v1::GetStatsRequest request;
  request.set_reset(reset);
  v1::StatsSnapshot snapshot;
  grpc::Status status = stub->GetStats(&context, request, &snapshot);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return snapshot;
}

// `ok` valid calls and `invalid` refused ones, then every release recorded.
void Call(RecoServer& server, grpc::Channel* channel, int ok, int invalid) {
  const uint64_t releases = server.Stats(/*reset=*/false).release().latency().count();
  for (int i = 0; i < ok; ++i) {
    EXPECT_TRUE(CallRaw(channel, MakeRequest(20, v1::TEXT_PROFILE_REALISTIC, i + 1)).status.ok());
  }
  for (int i = 0; i < invalid; ++i) {
    EXPECT_EQ(CallRaw(channel, MakeRequest(kMaxItemCount + 1, v1::TEXT_PROFILE_REALISTIC)).status.error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  // heap and fragments hold no messages to release: no release phase is recorded.
  const bool measured = server.options().mode == ServingMode::kArenaPool;
  EXPECT_TRUE(testing::WaitForReleases(server, absl::Seconds(30), measured ? releases + ok : 0));
}

std::string Series(const std::string& name, const std::string& mode, const std::string& extra = "") {
  return absl::StrCat(name, "{mode=\"", mode, "\"", extra.empty() ? "" : ",", extra, "}");
}

// Every label name is one of a fixed set: a request cannot add series.
void ExpectFixedLabels(const std::map<std::string, double>& scrape) {
  const std::set<std::string> allowed = {
      "mode", "code", "phase", "state", "le", "malloc", "source", "grpc_version", "protobuf_version", "quantile"};
  for (const auto& [name, value] : scrape) {
    const size_t open = name.find('{');
    if (open == std::string::npos) continue;
    for (absl::string_view pair : absl::StrSplit(absl::string_view(name).substr(open + 1), ',')) {
      std::string label(pair.substr(0, pair.find('=')));
      EXPECT_TRUE(allowed.count(label)) << "label " << label << " in " << name;
    }
  }
  EXPECT_GT(scrape.size(), 20u);
}

class MetricsTest : public ::testing::TestWithParam<ServingMode> {};

TEST_P(MetricsTest, CountsAgreeWithServerStatsOverTheSameCalls) {
  auto server = StartWithMetrics(GetParam());
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(*server);
  const std::string mode = ServingModeName(GetParam());
  Call(*server, channel.get(), 2, 0);  // the series exist before the window opens

  std::map<std::string, double> before = Scrape(server->metrics_port());
  v1::StatsSnapshot stats_before = GetStats(channel.get(), /*reset=*/false);
  Call(*server, channel.get(), 5, 3);
  v1::StatsSnapshot stats_after = GetStats(channel.get(), /*reset=*/false);
  std::map<std::string, double> after = Scrape(server->metrics_port());
  auto delta = [&](const std::string& series) { return after[series] - before[series]; };
  ExpectFixedLabels(after);

  EXPECT_EQ(delta(Series("reco_rpcs_total", mode, "code=\"OK\"")), stats_after.rpcs() - stats_before.rpcs());
  EXPECT_EQ(delta(Series("reco_rpcs_total", mode, "code=\"OK\"")), 5);
  EXPECT_EQ(delta(Series("reco_rpcs_total", mode, "code=\"INVALID_ARGUMENT\"")),
            stats_after.rpc_invalid() - stats_before.rpc_invalid());
  EXPECT_EQ(delta(Series("reco_rpcs_total", mode, "code=\"INVALID_ARGUMENT\"")), 3);
  const std::map<std::string, std::pair<const v1::PhaseStats*, const v1::PhaseStats*>> phases = {
      {"build", {&stats_before.build(), &stats_after.build()}},
      {"serialize", {&stats_before.serialize(), &stats_after.serialize()}},
      {"release", {&stats_before.release(), &stats_after.release()}}};
  for (const auto& [phase, snapshots] : phases) {
    if (!stats_after.has_build()) break;  // fragments: no phases measured
    const std::string label = absl::StrCat("phase=\"", phase, "\"");
    const auto& [b, a] = snapshots;
    EXPECT_EQ(delta(Series("reco_phase_seconds_count", mode, label)), a->latency().count() - b->latency().count())
        << phase;
    EXPECT_NEAR(delta(Series("reco_phase_seconds_sum", mode, label)),
                (a->latency().sum_ns() - b->latency().sum_ns()) * 1e-9, 1e-6)
        << phase;
    EXPECT_EQ(delta(Series("reco_phase_allocations_sum", mode, label)),
              a->allocations().allocs() - b->allocations().allocs())
        << phase;
    EXPECT_EQ(delta(Series("reco_phase_allocated_bytes_total", mode, label)),
              a->allocations().bytes() - b->allocations().bytes())
        << phase;
  }
  if (stats_after.has_store()) {
    EXPECT_EQ(delta(Series("reco_store_leases_acquired_total", mode)),
              stats_after.store().acquired() - stats_before.store().acquired());
  }
  EXPECT_EQ(delta(Series("reco_reply_budget_admitted_total", mode)),
            stats_after.budget().admitted() - stats_before.budget().admitted());
}

TEST_P(MetricsTest, CountersOnlyGrowAcrossAStatsReset) {
  auto server = StartWithMetrics(GetParam());
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(*server);
  const std::string mode = ServingModeName(GetParam());
  const std::string ok = Series("reco_rpcs_total", mode, "code=\"OK\"");
  Call(*server, channel.get(), 4, 0);
  std::map<std::string, double> before = Scrape(server->metrics_port());
  GetStats(channel.get(), /*reset=*/true);
  std::map<std::string, double> after_reset = Scrape(server->metrics_port());
  for (const auto& [series, value] : before) {
    if (series.rfind("reco_", 0) == 0 && series.find("_total") != std::string::npos) {
      EXPECT_GE(after_reset[series], value) << series << " went down at a stats reset";
    }
  }
  EXPECT_EQ(after_reset[ok], 4);
  Call(*server, channel.get(), 3, 0);
  EXPECT_EQ(Scrape(server->metrics_port())[ok], 7);
  EXPECT_EQ(GetStats(channel.get(), /*reset=*/false).rpcs(), 3u);  // the window since the reset
}

INSTANTIATE_TEST_SUITE_P(Modes, MetricsTest,
                         ::testing::Values(ServingMode::kHeap, ServingMode::kArenaPool, ServingMode::kFragments),
                         [](const auto& info) { return ServingModeName(info.param); });

// Hostile HTTP clients on the metrics port: unknown paths, oversized and binary
// requests, clients that never finish a request, a flood of connections. Each gets
// an error or a closed connection; the gRPC port serves throughout and the metrics
// port answers again once they are gone.
TEST(MetricsEndpointTest, HostileClientsLeaveBothPortsServing) {
  auto server = StartWithMetrics(ServingMode::kArenaPool);
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(*server);
  const int port = server->metrics_port();

  EXPECT_EQ(Exchange(port, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 404", 0), 0u);
  EXPECT_EQ(Exchange(port, "GET /metrics/../etc/passwd HTTP/1.1\r\n\r\n").find("root:"), std::string::npos);
  const std::string huge = "GET /metrics HTTP/1.1\r\nX-Pad: " + std::string(1 << 20, 'a') + "\r\n\r\n";
  EXPECT_EQ(Exchange(port, huge).find(" 200 "), std::string::npos);  // refused, not served
  EXPECT_EQ(Exchange(port, std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04", 28)).find(" 200 "),
            std::string::npos);

  // More clients that never finish their request than the endpoint has workers.
  std::vector<int> stalled;
  for (int i = 0; i < 6; ++i) {
    int fd = Connect(port);
    ASSERT_GE(fd, 0);
    (void)!write(fd, "GET /metr", 9);
    stalled.push_back(fd);
  }
  for (int i = 0; i < 200; ++i) {  // and a flood of connections opened and dropped
    int fd = Connect(port);
    if (fd >= 0) close(fd);
  }
  EXPECT_TRUE(CallRaw(channel.get(), MakeRequest(20, v1::TEXT_PROFILE_REALISTIC)).status.ok())
      << "the gRPC port stopped serving while the metrics port was held";
  for (int fd : stalled) close(fd);
  std::map<std::string, double> series = Scrape(port);
  EXPECT_EQ(series[Series("reco_rpcs_total", "arena_pool", "code=\"OK\"")], 1);
}

// With an allow list (--metrics_allow) another address is closed at accept: a whole
// scrape from it gets no reply, and its clients that never finish a request hold
// no worker, so the allowed scraper is answered while they are open.
TEST(MetricsEndpointTest, AnAllowListClosesOtherAddressesBeforeTheyHoldAWorker) {
  auto server = StartWithMetrics(ServingMode::kArenaPool, {"127.0.0.2/32"});
  ASSERT_NE(server, nullptr);
  const int port = server->metrics_port();
  const std::string scrape = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  EXPECT_TRUE(Exchange(port, scrape, "127.0.0.1").empty()) << "an address outside the list was served";
  std::vector<int> stalled;
  for (int i = 0; i < 6; ++i) {  // more than the endpoint's 2 workers
    int fd = Connect(port, "127.0.0.1");
    ASSERT_GE(fd, 0);
    (void)!write(fd, "GET /metr", 9);
    stalled.push_back(fd);
  }
  EXPECT_EQ(Exchange(port, scrape, "127.0.0.2").rfind("HTTP/1.1 200", 0), 0u);
  for (int fd : stalled) close(fd);
  EXPECT_TRUE(CheckMetricsAllow({"10.0.0.0/8", "192.168.1.7"}).ok());
  EXPECT_EQ(CheckMetricsAllow({"10.0.0.0/8", "10.0.0.0/33"}).message(),
            "allow=10.0.0.0/33: not an IPv4 address or ADDRESS/BITS (e.g. 10.0.0.7 or 10.0.0.0/8)");
  EXPECT_FALSE(CheckMetricsAllow({"::1"}).ok());
}

}  // namespace
}  // namespace reco
