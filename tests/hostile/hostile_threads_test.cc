// The server's thread-shared pieces hammered from many threads at once, without gRPC:
// MessageStore (every mode), the MeasuredAllocator and its holders, PhaseRecorder and
// StatsSnapshotter snapshots taken (and reset) while RPCs are "in flight".
//
// This is the test ThreadSanitizer is for (scripts/sanitize.sh tsan). The gRPC-driven
// tests cannot be judged by TSan here: Debian's libgrpc and libabsl are not
// instrumented, so TSan does not see the happens-before their internal atomics create
// and reports every object gRPC hands from one thread to another (docs/reliability.md).
// Here every hand-off is our own code's, so a report is a real race.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/message_store.h"
#include "core/response_builder.h"
#include "core/test_util.h"
#include "server/phase_recorder.h"
#include "server/rpc_meter.h"
#include "server/stats_snapshotter.h"
#include "tests/hostile/hostile_server.h"

namespace reco::hostile {
namespace {

constexpr int kThreads = 4;
constexpr int kRpcsPerThread = 150;

class HostileThreadsTest : public ::testing::TestWithParam<MemoryMode> {};

// What a store holds once every one of `leases` leases is back, after more than
// max_idle were out at once. A holder lost or parked twice in a race shows here,
// where acquired == released (the test's own calls) cannot.
void ExpectPoolAtRest(MemoryMode mode, const MessageStoreStats& s, uint64_t max_idle, uint64_t leases) {
  switch (mode) {
    case MemoryMode::kHeap:
    case MemoryMode::kArena:  // nothing pooled: every lease made and freed
      EXPECT_EQ(s.created, leases);
      EXPECT_EQ(s.idle, 0u);
      break;
    case MemoryMode::kReuse:  // replies are far under max_kept_bytes: all kept but the overflow
      EXPECT_EQ(s.oversized, 0u);
      EXPECT_GT(s.created, max_idle);
      EXPECT_EQ(s.idle, max_idle) << "every holder back, the pool full, the rest freed";
      break;
    case MemoryMode::kArenaPool:  // max_idle pooled arenas, every one back; the overflow got plain ones
      EXPECT_GT(s.unpooled, 0u);
      EXPECT_EQ(s.created - s.unpooled, max_idle);
      EXPECT_EQ(s.idle, max_idle);
      break;
  }
}

TEST_P(HostileThreadsTest, StoreLeasesFromManyThreadsWhileStatsAreRead) {
  MessageStoreOptions options;
  options.max_idle = 3;                     // fewer than the threads: the pool overflows and refills
  options.initial_block_bytes = 16 * 1024;  // arena_pool: some responses outgrow it
  auto store = MakeMessageStore(GetParam(), options);
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::thread reader([&] {
    while (!done.load()) {
      MessageStoreStats s = store->Stats();
      if (s.idle > options.max_idle) ++wrong;
    }
  });
  // Each thread's first lease is held until every thread holds one: kThreads leases
  // at once, more than max_idle, whatever the scheduler does -- so the pool's end
  // state below is exact.
  std::atomic<int> holding{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRpcsPerThread; ++i) {
        v1::RecommendRequest r =
            Request(1 + (i * 7 + t) % 40, i % 2 ? v1::TEXT_PROFILE_COMPACT : v1::TEXT_PROFILE_REALISTIC, i);
        MessageLease lease = store->Acquire();
        if (i == 0) {
          holding.fetch_add(1);
          while (holding.load() < kThreads) std::this_thread::yield();
        }
        *lease.request = r;
        BuildResponse(DefaultCatalogue(), *lease.request, lease.response);
        if (lease.response->SerializeAsString() != ExpectedBytes(r)) ++wrong;
        store->Release(lease);
      }
    });
  }
  for (auto& t : threads) t.join();
  done = true;
  reader.join();
  MessageStoreStats s = store->Stats();
  EXPECT_EQ(wrong.load(), 0);
  const uint64_t leases = uint64_t{kThreads} * kRpcsPerThread;
  EXPECT_EQ(s.acquired, leases);
  EXPECT_EQ(s.released, leases);
  ExpectPoolAtRest(GetParam(), s, options.max_idle, leases);
}

TEST_P(HostileThreadsTest, AllocatorHoldersAndStatsSnapshotsUnderThreads) {
  if (GetParam() == MemoryMode::kHeap) GTEST_SKIP() << "heap mode installs no allocator";
  MessageStoreOptions options;
  options.max_idle = 3;
  auto store = MakeMessageStore(GetParam(), options);
  RpcMeter meter(/*measure_phases=*/true, /*max_idle_holders=*/3);
  RecommendAllocator* allocator = meter.Wrap(store->allocator());
  PhaseRecorder& recorder = *meter.recorder();
  StatsSnapshotter window(std::string(MemoryModeName(GetParam())), {&recorder, store.get()});
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  // Windows taken (and reset) while RPCs run: their release counts must add up, and
  // the since-start totals Prometheus reads (SinceStart) must never go down.
  uint64_t released_in_windows = 0;
  uint64_t since_start_drops = 0;
  std::thread snapshots([&] {
    bool reset = false;
    uint64_t since_start = 0;
    while (!done.load()) {
      v1::StatsSnapshot s = window.Snapshot(reset);
      if (reset) released_in_windows += s.release().latency().count();
      reset = !reset;
      const uint64_t now = window.SinceStart().release().latency().count();
      if (now < since_start) ++since_start_drops;
      since_start = now;
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRpcsPerThread; ++i) {
        // What gRPC does per RPC: take a holder, parse into its request, let the
        // handler fill the response, release the holder when the call is over.
        auto* holder = static_cast<MeasuredHolder*>(allocator->AllocateMessages());
        v1::RecommendRequest r = Request(1 + (i + t) % 30, v1::TEXT_PROFILE_REALISTIC, t * 1000 + i);
        *holder->request() = r;
        BuildResponse(DefaultCatalogue(), *holder->request(), holder->response());
        if (holder->response()->SerializeAsString() != ExpectedBytes(r)) ++wrong;
        recorder.CountRpc(grpc::StatusCode::OK);
        holder->RecordReleasePhase();
        holder->Release();
      }
    });
  }
  for (auto& t : threads) t.join();
  done = true;
  snapshots.join();
  v1::StatsSnapshot last = window.Snapshot(/*reset=*/true);
  released_in_windows += last.release().latency().count();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(released_in_windows, uint64_t{kThreads} * kRpcsPerThread) << "a release sample was lost or counted twice";
  EXPECT_EQ(since_start_drops, 0u);
  v1::StatsSnapshot all = window.SinceStart();
  EXPECT_EQ(all.release().latency().count(), uint64_t{kThreads} * kRpcsPerThread);
  EXPECT_EQ(all.release().allocations_per_call().count(), uint64_t{kThreads} * kRpcsPerThread);
  ASSERT_EQ(all.rpcs_by_code_size(), 17);
  EXPECT_EQ(all.rpcs_by_code(0), uint64_t{kThreads} * kRpcsPerThread);
  EXPECT_EQ(last.store().in_use(), 0u);
  EXPECT_LE(last.store().idle(), options.max_idle);
}

// The memory modes only: fragments has no store and no allocator holders (its
// shared state, the catalogue, is read-only; its scratch is per thread).
INSTANTIATE_TEST_SUITE_P(Modes, HostileThreadsTest, ::testing::ValuesIn(AllMemoryModes()), testing::ModeParamName);

}  // namespace
}  // namespace reco::hostile
