// The stats library in-process (the test binary counts with reco_core's malloc): exact
// RPC and build-phase counts, what a snapshot says about itself, resets, a server's
// own interceptors, and hostile calls.
#include "server_stats.h"

#include <unistd.h>

#include <atomic>
#include <optional>

#include "gtest/gtest.h"
#include "raw_call.h"
#include "server/testing/metrics_scrape.h"
#include "stats/service_stats.h"
#include "testing/feed_test_service.h"

namespace reco {
namespace {

using stats_testing::CallFeed;
using stats_testing::FeedTestService;
using stats_testing::GetStats;
using stats_testing::RunningServer;
using stats_testing::StartFeedServer;

constexpr uint32_t kPosts = 50;

TEST(ServerStatsTest, CountsEveryRpcAndTheBuildPhaseExactly) {
  FeedTestService service(/*measure_build=*/true);
  RunningServer s = StartFeedServer(&service, [](grpc::ServerBuilder& b) { EnableServerStats(b, "heap"); });
  ASSERT_NE(s.server, nullptr);
  stats_testing::MeasuredWindow w = stats_testing::MeasureCalls(s.channel.get(), /*ok=*/20, /*failing=*/3, kPosts);
  stats_testing::ExpectExactCounts(w, 20, 3, kPosts);
}

// options.metrics_listen: the Prometheus endpoint, one per process, counting what
// GetStats counts; a bad or second address is refused with a status.
TEST(ServerStatsTest, ServesPrometheusMetricsOncePerProcess) {
  FeedTestService service(/*measure_build=*/false);
  ServerStatsOptions options;
  options.label = "feed";
  options.metrics_listen = "127.0.0.1:99999";
  grpc::Status bad;
  RunningServer refused =
      StartFeedServer(&service, [&](grpc::ServerBuilder& b) { bad = EnableServerStats(b, options); });
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad.error_message();
  EXPECT_NE(bad.error_message().find("metrics_listen=127.0.0.1:99999"), std::string::npos) << bad.error_message();
  EXPECT_EQ(ServiceStats::Get().metrics_port(), 0);

  options.metrics_listen = "127.0.0.1:0";
  grpc::Status served;
  RunningServer s = StartFeedServer(&service, [&](grpc::ServerBuilder& b) { served = EnableServerStats(b, options); });
  ASSERT_TRUE(served.ok()) << served.error_message();
  const int port = ServiceStats::Get().metrics_port();
  ASSERT_NE(port, 0);
  const std::string ok = "reco_rpcs_total{mode=\"feed\",code=\"OK\"}";
  v1::StatsSnapshot before, after;
  std::map<std::string, double> scraped_before = testing::Scrape(port);
  ASSERT_TRUE(GetStats(s.channel.get(), false, &before).ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(CallFeed(s.channel.get(), "user", 1).ok());
  ASSERT_TRUE(GetStats(s.channel.get(), false, &after).ok());
  std::map<std::string, double> scraped_after = testing::Scrape(port);
  EXPECT_EQ(scraped_after[ok] - scraped_before[ok], after.rpcs() - before.rpcs());
  EXPECT_EQ(scraped_after[ok] - scraped_before[ok], 4);

  grpc::Status again;
  RunningServer second =
      StartFeedServer(&service, [&](grpc::ServerBuilder& b) { again = EnableServerStats(b, options); });
  EXPECT_EQ(again.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << again.error_message();
}

TEST(ServerStatsTest, SnapshotSaysWhoFilledIt) {
  FeedTestService service(/*measure_build=*/false);
  RunningServer s = StartFeedServer(&service, [](grpc::ServerBuilder& b) { EnableServerStats(b); });
  v1::StatsSnapshot snapshot;
  ASSERT_TRUE(GetStats(s.channel.get(), false, &snapshot).ok());
  EXPECT_EQ(snapshot.source(), "reco_server_stats");
  EXPECT_EQ(snapshot.mode(), "service");  // no label
  EXPECT_FALSE(snapshot.rpcs_not_counted());
  EXPECT_EQ(snapshot.pid(), getpid());
  EXPECT_FALSE(snapshot.malloc().empty());
  EXPECT_EQ(snapshot.grpc_version(), grpc::Version());
  EXPECT_FALSE(snapshot.protobuf_version().empty());
  EXPECT_GT(snapshot.rss_bytes(), 0u);
  EXPECT_GE(snapshot.peak_rss_bytes(), snapshot.rss_bytes());
  EXPECT_TRUE(snapshot.has_process_allocations());
}

// A pool given to the stats library is read at each snapshot into StatsSnapshot.store;
// a server without one reports no store.
TEST(ServerStatsTest, APoolsCountsBecomeTheStore) {
  FeedTestService service(/*measure_build=*/false);
  ServerStatsOptions options;
  PoolCounts counts{/*acquired=*/10, /*released=*/7, /*created=*/4, /*unpooled=*/3, /*overflows=*/2};
  options.pool = [&counts] { return counts; };
  RunningServer s = StartFeedServer(&service, [&](grpc::ServerBuilder& b) { EnableServerStats(b, options); });
  v1::StatsSnapshot snapshot;
  ASSERT_TRUE(GetStats(s.channel.get(), false, &snapshot).ok());
  ASSERT_TRUE(snapshot.has_store());
  EXPECT_EQ(snapshot.store().acquired(), 10u);
  EXPECT_EQ(snapshot.store().released(), 7u);
  EXPECT_EQ(snapshot.store().in_use(), 3u);
  EXPECT_EQ(snapshot.store().created(), 7u) << "StoreStats.created counts the unpooled leases too";
  EXPECT_EQ(snapshot.store().unpooled(), 3u);
  EXPECT_EQ(snapshot.store().arena_overflows(), 2u);
  counts.unpooled = 5;  // read again at the next snapshot
  ASSERT_TRUE(GetStats(s.channel.get(), false, &snapshot).ok());
  EXPECT_EQ(snapshot.store().unpooled(), 5u);

  RunningServer plain = StartFeedServer(&service, [](grpc::ServerBuilder& b) { EnableServerStats(b); });
  ASSERT_TRUE(GetStats(plain.channel.get(), false, &snapshot).ok());
  EXPECT_FALSE(snapshot.has_store()) << "the later server has no pool: the earlier one's is not read";
}

TEST(ServerStatsTest, ResetIsRefusedUnlessAllowed) {
  FeedTestService service(/*measure_build=*/false);
  for (bool allow : {false, true}) {
    SCOPED_TRACE(allow ? "allow_reset" : "default");
    ServerStatsOptions options;
    options.label = "pooled_arena";
    options.allow_reset = allow;
    RunningServer s = StartFeedServer(&service, [&](grpc::ServerBuilder& b) { EnableServerStats(b, options); });
    ASSERT_TRUE(CallFeed(s.channel.get(), "user", 1).ok());
    v1::StatsSnapshot reset, after;
    const AllocationCounts process_before = AllocationCounter::Process();
    grpc::Status status = GetStats(s.channel.get(), /*reset=*/true, &reset);
    ASSERT_TRUE(GetStats(s.channel.get(), false, &after).ok());
    const AllocationCounts process_since = AllocationCounter::Process() - process_before;
    EXPECT_EQ(after.mode(), "pooled_arena");
    if (allow) {
      ASSERT_TRUE(status.ok()) << status.error_message();
      EXPECT_GE(reset.rpcs(), 1u);
      EXPECT_EQ(after.rpcs(), 0u) << "the window restarted";
      // The new window's totals, not the process's since it started.
      EXPECT_GT(after.process_allocations().allocs(), 0u);
      EXPECT_LE(after.process_allocations().allocs(), process_since.allocs);
      EXPECT_LE(after.process_allocations().bytes(), process_since.bytes);
    } else {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
      EXPECT_NE(status.error_message().find("allow_reset"), std::string::npos) << status.error_message();
      EXPECT_GE(after.rpcs(), 1u) << "a refused reset keeps the window";
    }
  }
}

// The server's own interceptor, to see that it still runs next to the counting one.
class CallCounter final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallCounter(std::atomic<int>* calls) : calls_(calls) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    if (std::string(info->method()) == "/feed.v1.Feed/GetFeed") calls_->fetch_add(1);
    return nullptr;
  }

 private:
  std::atomic<int>* calls_;
};

// The documented order: EnableServerStats, then the server's own list holding the
// stats factory once. Each RPC counted once, the server's interceptor kept.
TEST(ServerStatsTest, OwnInterceptorsWithTheFactoryCountEachRpcOnce) {
  FeedTestService service(/*measure_build=*/true);
  std::atomic<int> own_calls{0};
  RunningServer s = StartFeedServer(&service, [&](grpc::ServerBuilder& b) {
    EnableServerStats(b, "heap");
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    interceptors.push_back(std::make_unique<CallCounter>(&own_calls));
    interceptors.push_back(NewServerStatsInterceptorFactory());
    b.experimental().SetInterceptorCreators(std::move(interceptors));
  });
  stats_testing::MeasuredWindow w = stats_testing::MeasureCalls(s.channel.get(), /*ok=*/7, /*failing=*/2, kPosts);
  stats_testing::ExpectExactCounts(w, 7, 2, kPosts);
  EXPECT_EQ(own_calls.load(), 9);
}

// Garbage where a GetStatsRequest should be, an unknown method of a served service
// and an unknown service: each gets a clear status and the server keeps serving.
TEST(ServerStatsTest, HostileCallsAreRefusedAndTheServerKeepsServing) {
  FeedTestService service(/*measure_build=*/false);
  RunningServer s = StartFeedServer(&service, [](grpc::ServerBuilder& b) { EnableServerStats(b, "heap"); });
  v1::StatsSnapshot before, after;
  ASSERT_TRUE(GetStats(s.channel.get(), false, &before).ok());

  std::string reply;
  // A field 1 (reset) announced as length-delimited with a length past the end.
  grpc::Status garbage = patterns::testing::CallRawUnary(s.channel.get(), "/reco.v1.ServerStats/GetStats",
                                                         std::string("\x0a\xff\xff\xff\x0f garbage", 14), &reply);
  EXPECT_TRUE(garbage.error_code() == grpc::StatusCode::INTERNAL ||
              garbage.error_code() == grpc::StatusCode::INVALID_ARGUMENT)
      << garbage.error_code() << " " << garbage.error_message();
  EXPECT_TRUE(reply.empty());
  for (const char* method : {"/reco.v1.ServerStats/NoSuchMethod", "/no.such.Service/GetStats"}) {
    grpc::Status unknown = patterns::testing::CallRawUnary(s.channel.get(), method, std::string(), &reply);
    EXPECT_EQ(unknown.error_code(), grpc::StatusCode::UNIMPLEMENTED) << method;
  }

  ASSERT_TRUE(CallFeed(s.channel.get(), "user", 1).ok());
  ASSERT_TRUE(GetStats(s.channel.get(), false, &after).ok());
  EXPECT_EQ(after.rpcs() - before.rpcs(), 1u);
  // The two UNIMPLEMENTED calls are the server's answers (not OK); the garbage sent to
  // GetStats is a stats call, never counted.
  EXPECT_EQ(after.rpc_errors() - before.rpc_errors(), 2u);
}

}  // namespace
}  // namespace reco
