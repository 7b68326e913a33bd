// The memory a flood can make the server hold is bounded by the reply budget
// (--inflight_budget_bytes), in every request-serving mode (the four memory modes and
// fragments), and work nobody waits for is dropped. Against an in-process server on
// 127.0.0.1 with a 96 MiB budget (four 10,000-item replies at their 24 MB estimate):
//   - ReadingFlood: 2 connections x 128 calls of 10,000 realistic items, started at
//     once. Every call ends OK or RESOURCE_EXHAUSTED naming the flag; the budget's
//     peak never passes its capacity; refusals are counted in the stats as such; the
//     process's peak RSS rises by less than the budget plus a fixed overhead; after it,
//     every reservation is back and a correct request gets the exact bytes.
//   - NeverReadingClient: a raw HTTP/2 client (raw_http2_client.py never_read_flood)
//     asks for 64 such replies with a stream window of 0, so no reply byte can leave,
//     holds the connection 3 s and drops it. The server holds at most the budget's
//     worth meanwhile, refuses the rest at once (trailers are not flow-controlled, so
//     the client sees them), and gives everything back when the client is gone.
//   - DeadlineStorm: 64 calls of 10,000 items with 1 ms deadlines. At most a handful
//     of complete replies get built (the build checks the deadline before the first
//     item and every 16 items); the rest are counted as abandoned or refused.
// Counts and bytes only, no timings. The default budget (256 MiB) and floods of 1, 2
// and 4 connections x 256 calls are scripts/flood.sh's (docs/reliability.md).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "core/allocation_counter.h"
#include "core/reply_memory.h"
#include "core/test_util.h"
#include "server/process_metrics.h"
#include "tests/hostile/hostile_server.h"

namespace reco::hostile {
namespace {

constexpr uint64_t kBudget = uint64_t{96} << 20;
constexpr uint32_t kItems = 10000;
// What the process may hold beyond the budget during a flood: gRPC's per-call and
// transport memory for 256 calls, the in-process client's receive buffers, and glibc's
// rounding. Measured peak RSS rise: see the test's output (printed on every run).
constexpr uint64_t kOverhead = uint64_t{96} << 20;
// Under a sanitizer RSS is not the server's figure (ASan's quarantine keeps freed
// memory, and shadow memory grows with it): the RSS bounds are not checked there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

struct Call {
  grpc::ClientContext context;
  grpc::ByteBuffer response;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
};

// Starts `count` Recommend calls spread over `stubs` on `cq`, each with `deadline`.
std::vector<std::unique_ptr<Call>> StartCalls(std::vector<std::unique_ptr<grpc::GenericStub>>& stubs,
                                              grpc::CompletionQueue* cq, const std::string& request_bytes, int count,
                                              std::chrono::system_clock::time_point deadline) {
  std::vector<std::unique_ptr<Call>> calls;
  for (int i = 0; i < count; ++i) {
    auto call = std::make_unique<Call>();
    call->context.set_deadline(deadline);
    grpc::Slice slice(request_bytes);
    grpc::ByteBuffer buffer(&slice, 1);
    call->reader =
        stubs[i % stubs.size()]->PrepareUnaryCall(&call->context, "/reco.v1.Recommender/Recommend", buffer, cq);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, call.get());
    calls.push_back(std::move(call));
  }
  return calls;
}

// Waits for every call; the replies are dropped as they come (the client keeps none).
void AwaitAll(grpc::CompletionQueue* cq, size_t count) {
  for (size_t done = 0; done < count; ++done) {
    void* tag = nullptr;
    bool ok = false;
    ASSERT_TRUE(cq->Next(&tag, &ok));
    static_cast<Call*>(tag)->response.Clear();
  }
}

class HostileBudgetTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { StartServer(kBudget); }

  // (Re)starts server_ with this budget (0: none), warmed up, its stats reset.
  // The server's stats once it has finished what it was doing: its count of ended
  // calls stood still for 300 ms (at most 30 s).
  v1::StatsSnapshot StatsOnceSettled() {
    v1::StatsSnapshot s = server_->Stats(/*reset=*/false);
    for (int i = 0; i < 100; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      v1::StatsSnapshot later = server_->Stats(/*reset=*/false);
      const bool still = later.rpcs() + later.rpc_errors() == s.rpcs() + s.rpc_errors();
      s = later;
      if (still) break;
    }
    return s;
  }

  void StartServer(uint64_t budget, TrimOptions trim = TrimOptions()) {
    server_.reset();
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    SetServingMode(GetParam(), &options);
    options.store.max_idle = kMaxIdle;
    options.inflight_budget_bytes = budget;
    options.trim = trim;
    auto started = RecoServer::Start(options);
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
    channel_ = ChannelTo(*server_);
    // Warm up: the baseline RSS then includes what any run has (one whole reply).
    Reply warm =
        CallBytes(channel_.get(), Request(kItems, v1::TEXT_PROFILE_REALISTIC).SerializeAsString(), absl::Seconds(60));
    ASSERT_TRUE(warm.status.ok()) << warm.status.error_message();
    // gRPC releases the warm call's messages after the client has its reply: wait for
    // that, so the window below starts with nothing out.
    for (int i = 0; i < 2000; ++i) {
      v1::StatsSnapshot s = server_->Stats(/*reset=*/false);
      if (s.store().in_use() == RestingLeases(*server_) && s.budget().in_use_bytes() == 0) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    server_->Stats(/*reset=*/true);
  }

  // 64 calls of 10,000 items with deadlines of deadline_ms, then the checks.
  void RunDeadlineStorm(int deadline_ms);

  std::unique_ptr<RecoServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_P(HostileBudgetTest, ReadingFloodIsRefusedPastTheBudget) {
  constexpr int kConnections = 2, kCallsPerConnection = 128, kCalls = kConnections * kCallsPerConnection;
  const uint64_t baseline_rss = ReadProcessMetrics().rss_bytes;
  ASSERT_TRUE(ResetPeakRss());
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
  for (int i = 0; i < kConnections; ++i) {
    channels.push_back(ChannelTo(*server_));
    stubs.push_back(std::make_unique<grpc::GenericStub>(channels.back()));
  }
  grpc::CompletionQueue cq;
  const std::string request = Request(kItems, v1::TEXT_PROFILE_REALISTIC).SerializeAsString();
  auto calls = StartCalls(stubs, &cq, request, kCalls, std::chrono::system_clock::now() + std::chrono::seconds(120));
  AwaitAll(&cq, calls.size());
  const uint64_t peak_rss = ReadProcessMetrics().peak_rss_bytes;

  int ok = 0, exhausted = 0, exhausted_unnamed = 0;
  std::string other;
  for (const auto& call : calls) {
    if (call->status.ok()) {
      ++ok;
    } else if (call->status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++exhausted;
      if (call->status.error_message().find("--inflight_budget_bytes") == std::string::npos) ++exhausted_unnamed;
    } else if (other.empty()) {
      other = call->status.error_message();
    }
  }
  EXPECT_EQ(ok + exhausted, kCalls) << "another status: " << other;
  EXPECT_GE(ok, 1);
  EXPECT_GE(exhausted, 1) << "256 calls of 24 MB against a 96 MiB budget: some must be refused";
  EXPECT_EQ(exhausted_unnamed, 0) << "every refusal names the flag";

  v1::StatsSnapshot s = server_->Stats(/*reset=*/false);
  EXPECT_TRUE(s.budget().enabled());
  EXPECT_LE(s.budget().peak_bytes(), kBudget);
  EXPECT_GE(s.budget().peak_bytes(), EstimateReplyBytes(Request(kItems, v1::TEXT_PROFILE_REALISTIC)));
  EXPECT_EQ(s.budget().refused(), static_cast<uint64_t>(exhausted));
  EXPECT_EQ(s.rpc_over_budget(), static_cast<uint64_t>(exhausted));
  EXPECT_EQ(s.rpcs(), static_cast<uint64_t>(ok));
  const uint64_t rise = peak_rss > baseline_rss ? peak_rss - baseline_rss : 0;
  std::printf("reading flood: %d OK, %d RESOURCE_EXHAUSTED; budget peak %llu bytes; peak RSS rise %llu MiB\n", ok,
              exhausted, static_cast<unsigned long long>(s.budget().peak_bytes()),
              static_cast<unsigned long long>(rise >> 20));
  if (!kSanitized) {
    EXPECT_LE(rise, kBudget + kOverhead) << "peak RSS " << peak_rss << " from " << baseline_rss;
  }
  ExpectWhole(*server_, channel_.get(), "a reading flood");
}

TEST_P(HostileBudgetTest, NeverReadingClientHoldsNoMoreThanTheBudget) {
  constexpr int kStreams = 64;
  const uint64_t baseline_rss = ReadProcessMetrics().rss_bytes;
  ASSERT_TRUE(ResetPeakRss());
  std::atomic<bool> running{true};
  std::atomic<uint64_t> max_reserved{0};
  std::thread sampler([&] {
    while (running.load()) {
      uint64_t reserved = server_->Stats(/*reset=*/false).budget().in_use_bytes();
      max_reserved.store(std::max(max_reserved.load(), reserved));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  nlohmann::json report =
      RunRawHttp2Client(server_->port(), "never_read_flood " + std::to_string(kStreams) + " 10000 3");
  running.store(false);
  sampler.join();
  const uint64_t peak_rss = ReadProcessMetrics().peak_rss_bytes;

  ASSERT_TRUE(report.is_object() && report.contains("statuses")) << report.dump();
  const int refused = report["statuses"].value("8", 0);
  const int unanswered = report["unanswered"].get<int>();
  const uint64_t per_reply = EstimateReplyBytes(Request(kItems, v1::TEXT_PROFILE_REALISTIC));
  // Admitted calls cannot finish (their bytes cannot leave); everything else is refused.
  EXPECT_LE(static_cast<uint64_t>(unanswered), kBudget / per_reply) << report.dump();
  EXPECT_GE(unanswered, 1) << report.dump();
  EXPECT_EQ(refused + unanswered, kStreams) << report.dump();
  EXPECT_LE(max_reserved.load(), kBudget);
  const uint64_t rise = peak_rss > baseline_rss ? peak_rss - baseline_rss : 0;
  std::printf("never-reading client: %d refused, %d held; most reserved %llu bytes; peak RSS rise %llu MiB\n", refused,
              unanswered, static_cast<unsigned long long>(max_reserved.load()),
              static_cast<unsigned long long>(rise >> 20));
  if (!kSanitized) {
    EXPECT_LE(rise, kBudget + kOverhead) << "peak RSS " << peak_rss << " from " << baseline_rss;
  }
  // The client is gone: its calls are cancelled, their memory and reservations return.
  ExpectWhole(*server_, channel_.get(), "a never-reading client");
}

// Deadlines of 1 ms (most calls expire before their handler runs: the check before the
// first item) and of 25 ms (handlers start in time and the deadline passes while they
// build: the check every 16 items). No budget here, so that only the checks stand
// between the storm and 64 replies built for nobody. Without the checks (the mutation
// that makes them always say "waiting"), 64 of 64 complete at 25 ms and 1-12 at 1 ms.
// fragments splices its items instead of building a message, several times faster:
// at 25 ms the handlers that start early finish in time, and a reply can reach the
// client (4-6 of 64 built, 0-1 received, on the 2-core VM; the mutation: 64 built).
// There the test asks for fewer than half built, and no reply received that the
// server did not build.
TEST_P(HostileBudgetTest, DeadlineStormBuildsAlmostNothing) {
  StartServer(/*budget=*/0);
  for (int deadline_ms : {1, 25}) {
    SCOPED_TRACE(deadline_ms);
    RunDeadlineStorm(deadline_ms);
  }
}

void HostileBudgetTest::RunDeadlineStorm(int deadline_ms) {
  server_->Stats(/*reset=*/true);
  constexpr int kCalls = 64;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
  stubs.push_back(std::make_unique<grpc::GenericStub>(channel_));
  grpc::CompletionQueue cq;
  const std::string request = Request(kItems, v1::TEXT_PROFILE_REALISTIC).SerializeAsString();
  auto calls = StartCalls(stubs, &cq, request, kCalls,
                          std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
  AwaitAll(&cq, calls.size());
  int ok = 0;
  for (const auto& call : calls) ok += call->status.ok() ? 1 : 0;
  const v1::StatsSnapshot s = StatsOnceSettled();
  std::printf("%d ms deadlines: %d OK at the client; server: %llu complete, %llu abandoned\n", deadline_ms, ok,
              static_cast<unsigned long long>(s.rpcs()), static_cast<unsigned long long>(s.rpc_abandoned()));
  if (absl::StartsWith(GetParam(), "fragments") && deadline_ms > 1) {  // either API
    EXPECT_LE(static_cast<uint64_t>(ok), s.rpcs());
    EXPECT_LT(s.rpcs(), uint64_t{kCalls} / 2) << "without the checks all 64 are built";
  } else {
    // A handful: a build completes only if it started before the deadline and no
    // check caught it. Whether one of them reaches the client in time depends on the
    // machine's speed (2 of 64 did once in 25 ms), so the client's count is held to
    // the server's, not to 0.
    EXPECT_LE(static_cast<uint64_t>(ok), s.rpcs());
    EXPECT_LE(s.rpcs(), 4u);
  }
  ExpectWhole(*server_, channel_.get(), "a storm of short deadlines");
}

// Clients that leave: 64 calls of 10,000 items with no deadline on a connection of
// their own, all cancelled as soon as the server has admitted one. The budget admits
// all 64 (it is only read here, to see the handlers start), so that only the
// handlers' checks stand between the calls and 64 replies built for nobody. The async
// API sees the cancellation at its next check (patterns/async_arena_call.h: the
// serving thread takes the calls' done notifications while it builds); before, it
// built all 64.
// The callback API built all 64 here on the 2-core VM: its stop check asks
// IsCancelled(), which did not turn true while gRPC's threads built (issue #47) --
// skipped there, saying so.
TEST_P(HostileBudgetTest, CallsOfClientsThatLeftAreNotBuilt) {
  if (!absl::EndsWith(GetParam(), "_async")) {
    GTEST_SKIP() << "known: the callback API builds the calls of clients that left (issue #47)";
  }
  constexpr int kCalls = 64;
  StartServer(/*budget=*/uint64_t{4} << 30);
  const std::string request = Request(kItems, v1::TEXT_PROFILE_REALISTIC).SerializeAsString();
  // One round: the calls on a new connection, cancelled once the server has admitted
  // one; what the server built before and after, and how many calls it stopped.
  struct Round {
    int ok = 0;
    uint64_t built_before = 0, built_after = 0, abandoned = 0;
  };
  auto run_round = [&] {
    Round r;
    const v1::StatsSnapshot start = server_->Stats(/*reset=*/false);
    auto channel = ChannelTo(*server_);
    std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
    stubs.push_back(std::make_unique<grpc::GenericStub>(channel));
    grpc::CompletionQueue cq;
    auto calls = StartCalls(stubs, &cq, request, kCalls, std::chrono::system_clock::now() + std::chrono::seconds(120));
    for (int i = 0; i < 3000 && server_->Stats(/*reset=*/false).budget().in_use_bytes() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    r.built_before = server_->Stats(/*reset=*/false).rpcs() - start.rpcs();
    for (auto& call : calls) call->context.TryCancel();
    AwaitAll(&cq, calls.size());
    for (const auto& call : calls) r.ok += call->status.ok() ? 1 : 0;
    const v1::StatsSnapshot s = StatsOnceSettled();
    r.built_after = s.rpcs() - start.rpcs() - r.built_before;
    r.abandoned = s.rpc_abandoned() - start.rpc_abandoned();
    std::printf(
        "clients that left: %d OK at the client; server: %llu complete before the cancel, %llu after, "
        "%llu abandoned\n",
        r.ok, static_cast<unsigned long long>(r.built_before), static_cast<unsigned long long>(r.built_after),
        static_cast<unsigned long long>(r.abandoned));
    return r;
  };
  // On a busy machine the cancellations can reach the server before any handler took
  // a call (or all but one): nothing was stopped, which proves nothing. Then again, up
  // to three rounds; what was built after the cancel is held to its bound in each.
  Round r = run_round();
  uint64_t most_built_after = r.built_after;
  for (int round = 1; round < 3 && r.abandoned == 0; ++round) {
    r = run_round();
    most_built_after = std::max(most_built_after, r.built_after);
  }
  EXPECT_GE(r.abandoned, 1u) << "no call was stopped in three rounds: the test proved nothing";
  // A build already running when the cancellation lands may finish, one per serving
  // thread. fragments splices its items instead of building a message, fast enough
  // that calls keep finishing while the client's 64 cancellations are on their way
  // (2-24 after it, on the 2-core VM): fewer than half there. Before: all 64.
  const uint64_t most = absl::StartsWith(GetParam(), "fragments") ? kCalls / 2 - 1 : 8;
  EXPECT_LE(most_built_after, most) << "replies were built for clients that had left";
  ExpectWhole(*server_, channel_.get(), "clients that left");
}

// After a burst, the memory goes back: 2 connections x 16 calls of 10,000 items under
// the default budget (256 MiB), then idle. Within 10 s, RSS must be back within 64 MiB
// of its figure before the burst (the trimmer looks every 100 ms here, every second by
// default), plus what the arena pool keeps by design: blocks that grew to fit these
// replies stay pooled for the next ones, within --max_pool_bytes (the store's
// arena_block_bytes says how much). Without the trimmer (interval 0) RSS stayed
// 117-176 MB above it.
TEST_P(HostileBudgetTest, MemoryGoesBackAfterABurst) {
  if (kSanitized) GTEST_SKIP() << "a sanitizer's allocator returns memory by its own rules";
  if (AllocationCounter::MallocName() != "glibc") GTEST_SKIP() << "the trimmer is glibc's";
  StartServer(ServerOptions().inflight_budget_bytes, TrimOptions{absl::Milliseconds(100), uint64_t{16} << 20});
  const uint64_t before = ReadProcessMetrics().rss_bytes;
  const uint64_t pooled_before = server_->Stats(/*reset=*/false).store().arena_block_bytes();
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
  for (int i = 0; i < 2; ++i) {
    channels.push_back(ChannelTo(*server_));
    stubs.push_back(std::make_unique<grpc::GenericStub>(channels.back()));
  }
  grpc::CompletionQueue cq;
  const std::string request = Request(kItems, v1::TEXT_PROFILE_REALISTIC).SerializeAsString();
  auto calls = StartCalls(stubs, &cq, request, 32, std::chrono::system_clock::now() + std::chrono::seconds(120));
  AwaitAll(&cq, calls.size());
  calls.clear();
  const uint64_t peak = ReadProcessMetrics().peak_rss_bytes;
  uint64_t now = ReadProcessMetrics().rss_bytes;
  v1::StatsSnapshot s = server_->Stats(/*reset=*/false);
  // What the pool kept of the burst: its blocks' growth, never above its cap.
  auto pool_kept = [&] {
    const uint64_t pooled = s.store().arena_block_bytes();
    return pooled > pooled_before ? pooled - pooled_before : 0;
  };
  auto bound = [&] { return before + (uint64_t{64} << 20) + pool_kept(); };
  // Until RSS is back and the trimmer has trimmed: a fragments burst holds only the
  // replies' per-request bytes and may never take RSS past the bound (+37 MiB seen),
  // yet leaves glibc tens of MiB free that the trimmer must still return.
  for (int i = 0; i < 100 && (now > bound() || s.trim().trims() == 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    now = ReadProcessMetrics().rss_bytes;
    s = server_->Stats(/*reset=*/false);
  }
  std::printf("burst: glibc %llu MiB in use, %llu MiB free\n",
              static_cast<unsigned long long>(s.malloc_heap().in_use_bytes() >> 20),
              static_cast<unsigned long long>(s.malloc_heap().free_bytes() >> 20));
  std::printf(
      "burst: RSS %llu MiB before, peak %llu MiB, %llu MiB after; the pool kept %llu MiB of grown blocks; "
      "%llu OK; %llu trims, %.3f s in them\n",
      static_cast<unsigned long long>(before >> 20), static_cast<unsigned long long>(peak >> 20),
      static_cast<unsigned long long>(now >> 20), static_cast<unsigned long long>(pool_kept() >> 20),
      static_cast<unsigned long long>(s.rpcs()), static_cast<unsigned long long>(s.trim().trims()),
      s.trim().trim_seconds());
  EXPECT_GT(s.rpcs(), 0u);
  const MessageStoreOptions store = ServerOptions().store;  // the test's own max_idle is kMaxIdle
  EXPECT_LE(s.store().arena_block_bytes(),
            std::max<uint64_t>(kMaxIdle * store.initial_block_bytes, store.max_pool_bytes))
      << "the pool kept more than its stated bound";
  EXPECT_LE(now, bound()) << "RSS did not come back within 10 s";
  EXPECT_GE(s.trim().trims(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Modes, HostileBudgetTest, ::testing::ValuesIn(ModesAndApis()), ModeName);

}  // namespace
}  // namespace reco::hostile
