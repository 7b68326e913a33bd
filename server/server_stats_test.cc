// The server's self-measurements, on real RPCs: counts are exact, allocation figures
// agree with the ledger (core/allocation_ledger.h), and reset starts a new window.
#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <vector>

#include "core/allocation_ledger.h"
#include "core/response_builder.h"
#include "server/testing/server_test_util.h"

namespace reco {
namespace {

using testing::CallRaw;
using testing::MakeRequest;

constexpr int kWarmupThreads = 8;
constexpr int kWarmupPerThread = 3;
constexpr int kSequentialWarmup = 4 * testing::kTestAsyncThreads;
constexpr int kRpcs = 20;

// Why arena_pool can fail to reach zero on a real server (docs/server.md, "Arena
// ownership across threads").
constexpr char kOwnershipHint[] =
    "protobuf 3.21 gives a reset arena's initial block to the thread that called Reset(); "
    "gRPC releases an RPC (Reset) on one thread and the next RPC may build on another, which then "
    "gets fresh heap blocks. The pool must re-home the block on the acquiring thread.";

// Per-RPC allocations of each phase at steady state, measured by the server.
struct ServerCosts {
  double build_allocs = 0, release_allocs = 0, serialize_allocs = 0;
  uint64_t overflows = 0;
};

ServerCosts MeasureSteadyState(ServingMode serving, const v1::RecommendRequest& request,
                               ServingApi api = ServingApi::kCallback) {
  const MemoryMode mode = *MessageMemoryMode(serving);
  auto server = testing::StartTestServer(serving, /*measure=*/true, api);
  // heap on the callback API has no allocator to time a release in; on the async API
  // it has one (HeapRecommendAllocator), measured like the others. The async API has
  // no serialize phase (async_recommender.h) and keeps one call armed per thread.
  const bool records_releases = mode != MemoryMode::kHeap || api == ServingApi::kAsync;
  const uint64_t serializes = api == ServingApi::kAsync ? 0 : kRpcs;
  const uint64_t resting = testing::RestingLeases(mode, api);
  auto channel = testing::ChannelTo(*server);
  // Warm up with several RPCs in flight at once, so the pools hold more idle leases
  // than the sequential window below ever needs (gRPC releases a call's messages
  // after the client has its reply, so even one client can have two or three out).
  std::vector<std::thread> warmup;
  for (int t = 0; t < kWarmupThreads; ++t) {
    warmup.emplace_back([&] {
      for (int i = 0; i < kWarmupPerThread; ++i) EXPECT_TRUE(CallRaw(channel.get(), request).status.ok());
    });
  }
  for (std::thread& t : warmup) t.join();
  // Then a few calls one at a time, as the window makes them. The async API takes a
  // call's messages when it arms the call, before the call arrives, and its build
  // phase counts that taking: a call armed while the warm-up had every pooled arena in
  // use made a new one (a holder and its block), and if the window served that call
  // its build showed the new arena's allocations (seen with a busy loop beside).
  // Calls served one at a time re-arm from an idle pool, and go to the queues the
  // window's calls will go to.
  for (int i = 0; i < kSequentialWarmup; ++i) EXPECT_TRUE(CallRaw(channel.get(), request).status.ok());
  // Every warm-up release recorded, not only every lease back: the holder records its
  // release phase just after the store counts the lease returned, and a sample landing
  // after the reset below would count in the measured window (seen once under ASan).
  const uint64_t warmup_releases = records_releases ? kWarmupThreads * kWarmupPerThread + kSequentialWarmup : 0;
  EXPECT_TRUE(testing::WaitForReleases(*server, absl::Seconds(10), warmup_releases, resting));
  server->Stats(/*reset=*/true);
  for (int i = 0; i < kRpcs; ++i) EXPECT_TRUE(CallRaw(channel.get(), request).status.ok());
  const uint64_t releases = records_releases ? kRpcs : 0;
  EXPECT_TRUE(testing::WaitForReleases(*server, absl::Seconds(10), releases, resting));
  v1::StatsSnapshot s = server->Stats(/*reset=*/false);
  EXPECT_EQ(s.mode(), ServingModeName(serving));
  EXPECT_EQ(s.rpcs(), static_cast<uint64_t>(kRpcs));
  EXPECT_EQ(s.rpc_errors(), 0u);
  EXPECT_EQ(s.build().latency().count(), static_cast<uint64_t>(kRpcs));
  EXPECT_EQ(s.serialize().latency().count(), serializes);
  EXPECT_EQ(s.release().latency().count(), releases);
  ServerCosts c;
  c.build_allocs = static_cast<double>(s.build().allocations().allocs()) / kRpcs;
  c.serialize_allocs = serializes == 0 ? 0 : static_cast<double>(s.serialize().allocations().allocs()) / kRpcs;
  c.release_allocs = static_cast<double>(s.release().allocations().allocs()) / kRpcs;
  c.overflows = s.store().arena_overflows();
  if (mode == MemoryMode::kReuse || mode == MemoryMode::kArenaPool) {
    // Steady state: every lease came from the pool (none made from scratch).
    EXPECT_EQ(s.store().created(), 0u);
  }
  return c;
}
ServerCosts MeasureSteadyState(MemoryMode mode, const v1::RecommendRequest& request,
                               ServingApi api = ServingApi::kCallback) {
  return MeasureSteadyState(ServingModeFor(mode), request, api);
}

// A request whose parsing allocates nothing: gRPC parses it into the leased request
// between AllocateMessages() and the handler, outside every phase; a user_id would
// move the arena's first block allocation there (arena: 35 in build + 1 in parsing).
v1::RecommendRequest NoStringRequest(v1::TextProfile profile) {
  v1::RecommendRequest request = MakeRequest(200, profile);
  request.clear_user_id();
  return request;
}

TEST(ServerStatsTest, BuildAllocationsMatchTheLedgerAndAreOrdered) {
  v1::RecommendRequest request = NoStringRequest(v1::TEXT_PROFILE_COMPACT);
  LedgerOptions ledger_options;
  Ledger ledger = MeasureLedger(request, ledger_options);
  std::map<MemoryMode, ServerCosts> costs;
  for (MemoryMode mode : AllMemoryModes()) {
    SCOPED_TRACE(MemoryModeName(mode));
    costs[mode] = MeasureSteadyState(mode, request);
    if (mode != MemoryMode::kHeap) {
      // The server's build is the ledger's: store Acquire() + BuildResponse().
      EXPECT_EQ(costs[mode].build_allocs, ledger.ForMode(mode).build.allocs) << kOwnershipHint;
    }
  }
  // heap: gRPC's DefaultMessageHolder puts the two top-level messages in its per-call
  // arena, so the server's heap build is the ledger's (which news them) minus two.
  EXPECT_EQ(costs[MemoryMode::kHeap].build_allocs, ledger.ForMode(MemoryMode::kHeap).build.allocs - 2);
  EXPECT_GT(costs[MemoryMode::kHeap].build_allocs, costs[MemoryMode::kReuse].build_allocs);
  EXPECT_GT(costs[MemoryMode::kReuse].build_allocs, costs[MemoryMode::kArena].build_allocs);
  EXPECT_GE(costs[MemoryMode::kArena].build_allocs, costs[MemoryMode::kArenaPool].build_allocs);
}

// The headline: pooled arenas with a reused initial block, short strings, steady
// state -- no allocation from AllocateMessages to Release, on the real RPC path.
TEST(ServerStatsTest, ArenaPoolCompactMakesNoAllocationsInBuildAndRelease) {
  ServerCosts c = MeasureSteadyState(MemoryMode::kArenaPool, NoStringRequest(v1::TEXT_PROFILE_COMPACT));
  EXPECT_EQ(c.build_allocs, 0) << kOwnershipHint;
  EXPECT_EQ(c.release_allocs, 0);
  EXPECT_EQ(c.overflows, 0u) << "an arena outgrew its initial block. " << kOwnershipHint;
}

// --api async measures the same build as the ledger in the arena modes, and arena_pool's
// zero; its counts are exact (no serialize phase: async_recommender.h). Not heap (its
// holder news the messages: not the ledger's build) nor reuse: a reused message's cost
// depends on its history, and an async call's message is the one taken when the call
// was armed -- at steady state one armed per thread may never have been built into.
TEST(ServerStatsTest, AsyncBuildAllocationsMatchTheLedger) {
  v1::RecommendRequest request = NoStringRequest(v1::TEXT_PROFILE_COMPACT);
  Ledger ledger = MeasureLedger(request, LedgerOptions());
  for (MemoryMode mode : {MemoryMode::kArena, MemoryMode::kArenaPool}) {
    SCOPED_TRACE(MemoryModeName(mode));
    ServerCosts c = MeasureSteadyState(mode, request, ServingApi::kAsync);
    // Exact, the window's total included: a call armed during the warm-up is served
    // by then (MeasureSteadyState's calls one at a time).
    EXPECT_EQ(c.build_allocs, ledger.ForMode(mode).build.allocs) << kOwnershipHint;
    if (mode == MemoryMode::kArenaPool) {
      EXPECT_EQ(c.build_allocs, 0) << kOwnershipHint;
      EXPECT_EQ(c.release_allocs, 0);
      EXPECT_EQ(c.overflows, 0u) << kOwnershipHint;
    }
  }
}

TEST(ServerStatsTest, RealisticTextAllocatesOncePerLongStringOnArenaPool) {
  v1::RecommendRequest request = NoStringRequest(v1::TEXT_PROFILE_REALISTIC);
  Ledger ledger = MeasureLedger(request, LedgerOptions());
  ServerCosts c = MeasureSteadyState(MemoryMode::kArenaPool, request);
  EXPECT_EQ(c.build_allocs, ledger.ForMode(MemoryMode::kArenaPool).build.allocs) << kOwnershipHint;
  EXPECT_GT(c.build_allocs, 0);
  // Reset() frees what build allocated (the string payloads), nothing more.
  EXPECT_EQ(c.release_allocs, 0);
}

// arena_alias on the real RPC path: its build allocates exactly the ledger's
// arena_alias row -- with realistic text the reply's own long strings, fewer than
// arena_pool's by the catalogue sub-messages' -- and its release nothing, through
// both APIs.
TEST(ServerStatsTest, ArenaAliasBuildAllocationsMatchTheLedger) {
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    SCOPED_TRACE(TextProfileName(profile));
    const v1::RecommendRequest request = NoStringRequest(profile);
    LedgerOptions options;
    options.modes = {MemoryMode::kArenaPool};
    options.arena_alias = true;
    const Ledger ledger = MeasureLedger(request, options);
    for (ServingApi api : {ServingApi::kCallback, ServingApi::kAsync}) {
      SCOPED_TRACE(api == ServingApi::kAsync ? "async" : "callback");
      const ServerCosts c = MeasureSteadyState(ServingMode::kArenaAlias, request, api);
      EXPECT_EQ(c.build_allocs, ledger.ArenaAlias().build.allocs) << kOwnershipHint;
      EXPECT_EQ(c.release_allocs, 0);
      EXPECT_EQ(c.overflows, 0u) << kOwnershipHint;
    }
    if (profile == v1::TEXT_PROFILE_REALISTIC) {
      EXPECT_LT(ledger.ArenaAlias().build.allocs, ledger.ForMode(MemoryMode::kArenaPool).build.allocs);
    }
  }
}

TEST(ServerStatsTest, ResetStartsANewWindow) {
  auto server = testing::StartTestServer(MemoryMode::kArena);
  auto channel = testing::ChannelTo(*server);
  v1::RecommendRequest good = MakeRequest(10, v1::TEXT_PROFILE_COMPACT);
  v1::RecommendRequest bad = MakeRequest(kMaxItemCount + 1, v1::TEXT_PROFILE_COMPACT);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(CallRaw(channel.get(), good).status.ok());
  ASSERT_FALSE(CallRaw(channel.get(), bad).status.ok());
  ASSERT_TRUE(testing::WaitForReleases(*server, absl::Seconds(10), 3));

  v1::StatsSnapshot first = server->Stats(/*reset=*/true);
  EXPECT_EQ(first.rpcs(), 3u);
  EXPECT_EQ(first.rpc_errors(), 1u);
  EXPECT_EQ(first.store().acquired(), 4u);  // the refused RPC had messages too
  EXPECT_EQ(first.mode(), "arena");
  EXPECT_GT(first.process_allocations().allocs(), first.build().allocations().allocs());
  EXPECT_FALSE(first.grpc_version().empty());
  EXPECT_FALSE(first.protobuf_version().empty());
  EXPECT_GT(first.rss_bytes(), 0u);
  EXPECT_GE(first.peak_rss_bytes(), first.rss_bytes());

  v1::StatsSnapshot empty = server->Stats(/*reset=*/false);
  EXPECT_EQ(empty.rpcs(), 0u);
  EXPECT_EQ(empty.rpc_errors(), 0u);
  EXPECT_EQ(empty.build().latency().count(), 0u);
  EXPECT_EQ(empty.store().acquired(), 0u);
  EXPECT_LT(empty.window_seconds(), first.window_seconds() + 60);

  for (int i = 0; i < 2; ++i) ASSERT_TRUE(CallRaw(channel.get(), good).status.ok());
  ASSERT_TRUE(testing::WaitForReleases(*server, absl::Seconds(10), 2));
  v1::StatsSnapshot second = server->Stats(/*reset=*/false);
  EXPECT_EQ(second.rpcs(), 2u);
  EXPECT_EQ(second.store().released(), 2u);
}

TEST(ServerStatsTest, StatsRpcAnswersLikeTheInProcessCall) {
  auto server = testing::StartTestServer(MemoryMode::kReuse);
  auto channel = testing::ChannelTo(*server);
  ASSERT_TRUE(CallRaw(channel.get(), MakeRequest(5, v1::TEXT_PROFILE_COMPACT)).status.ok());
  auto stub = v1::ServerStats::NewStub(channel);
  grpc::ClientContext context;
  v1::GetStatsRequest request;
  v1::StatsSnapshot snapshot;
  ASSERT_TRUE(stub->GetStats(&context, request, &snapshot).ok());
  EXPECT_EQ(snapshot.mode(), "reuse");
  EXPECT_EQ(snapshot.source(), "reco_server");
  EXPECT_FALSE(snapshot.rpcs_not_counted());
  EXPECT_TRUE(snapshot.has_process_allocations());
  EXPECT_EQ(snapshot.rpcs(), 1u);
  EXPECT_EQ(snapshot.pid(), getpid());
}

// Anyone who reaches the port may read the stats; a reset over RPC only when the
// server allows it (--allow_stats_reset): it would restart every reader's window.
TEST(ServerStatsTest, ResetOverRpcIsRefusedUnlessAllowed) {
  for (bool allow : {false, true}) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.mode = ServingMode::kHeap;
    options.allow_stats_reset = allow;
    auto server = RecoServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    auto channel = testing::ChannelTo(**server);
    ASSERT_TRUE(CallRaw(channel.get(), MakeRequest(5, v1::TEXT_PROFILE_COMPACT)).status.ok());
    auto stub = v1::ServerStats::NewStub(channel);
    grpc::ClientContext context;
    v1::GetStatsRequest reset;
    reset.set_reset(true);
    v1::StatsSnapshot snapshot;
    grpc::Status status = stub->GetStats(&context, reset, &snapshot);
    if (allow) {
      EXPECT_TRUE(status.ok()) << status.error_message();
    } else {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
      EXPECT_NE(status.error_message().find("--allow_stats_reset"), std::string::npos) << status.error_message();
    }
    // The window was restarted only when allowed.
    EXPECT_EQ((*server)->Stats(/*reset=*/false).rpcs(), allow ? 0u : 1u);
  }
}

// A client checks replies against the catalogue the server reports (reco_load does):
// the report must name the catalogue the replies really come from, in-process and
// over the Stats RPC.
TEST(ServerStatsTest, ReportsTheCatalogueItsRepliesAreCopiedFrom) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.mode = ServingMode::kHeap;
  options.catalogue = {/*seed=*/9, /*items_per_profile=*/500};
  absl::StatusOr<std::unique_ptr<RecoServer>> server = RecoServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = testing::ChannelTo(**server);

  v1::StatsSnapshot in_process = (*server)->Stats(/*reset=*/false);
  v1::StatsSnapshot over_rpc;
  grpc::ClientContext context;
  ASSERT_TRUE(v1::ServerStats::NewStub(channel)->GetStats(&context, v1::GetStatsRequest(), &over_rpc).ok());
  for (const v1::StatsSnapshot* s : {&in_process, &over_rpc}) {
    ASSERT_TRUE(s->has_catalogue());
    EXPECT_EQ(s->catalogue().seed(), 9u);
    EXPECT_EQ(s->catalogue().items_per_profile(), 500u);
    EXPECT_GT(s->catalogue().build_seconds(), 0);
    EXPECT_GT(s->catalogue().space_used_bytes(), 0u);
  }

  // And the replies are that catalogue's: the builder's bytes from {9, 500}, not the
  // default catalogue's.
  const v1::RecommendRequest request = MakeRequest(20, v1::TEXT_PROFILE_REALISTIC);
  testing::RawReply reply = CallRaw(channel.get(), request);
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  v1::RecommendResponse expected;
  BuildResponse(*Catalogue::Shared(options.catalogue), request, &expected);
  // EXPECT_TRUE, not EXPECT_EQ: a failure would print two ~10 KB binary strings.
  EXPECT_TRUE(reply.bytes == expected.SerializeAsString()) << "not the {9, 500} catalogue's reply";
  EXPECT_TRUE(reply.bytes != testing::ExpectedBytes(request)) << "the default catalogue's reply";
}

TEST(ServerStatsTest, WithoutMeasurementThePhasesStayEmpty) {
  auto server = testing::StartTestServer(MemoryMode::kArenaPool, /*measure=*/false);
  auto channel = testing::ChannelTo(*server);
  ASSERT_TRUE(CallRaw(channel.get(), MakeRequest(5, v1::TEXT_PROFILE_COMPACT)).status.ok());
  ASSERT_TRUE(testing::WaitForReleases(*server, absl::Seconds(10)));
  v1::StatsSnapshot s = server->Stats(false);
  EXPECT_EQ(s.rpcs(), 1u);  // RPCs are counted either way
  EXPECT_EQ(s.build().latency().count(), 0u);
  EXPECT_EQ(s.serialize().latency().count(), 0u);
  EXPECT_EQ(s.release().latency().count(), 0u);
  EXPECT_EQ(s.store().released(), 1u);  // the store still counts
}

}  // namespace
}  // namespace reco
