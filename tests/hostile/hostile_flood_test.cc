// A request flood cannot grow the server's memory without bound: 3 connections each
// start 60 Recommend calls of 2,000 realistic items (~1 MB replies) at once, against
// the pooled modes (reuse, arena_pool) with a small per-connection stream limit (8).
//
// What bounds it: HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS (ServerOptions::
// max_concurrent_streams). gRPC's client honours it and queues the other calls, so the
// server has at most streams x connections RPCs open at once (and, because a lease
// is returned just after its stream closes, about twice that many leases).
// The test checks, from Stats() and /proc:
//   - leases in use (sampled all through the flood) never exceed 4 x streams x connections
//     (96, against the 180 calls started);
//   - after the flood every lease is back (in_use == 0) and idle <= max_idle; in
//     arena_pool no more than max_idle pooled arenas were ever made;
//   - every call succeeded with a reply of the expected size (one in 50 compared byte
//     for byte);
//   - peak RSS over the flood stays under a bound computed from those limits (below).
// Counts and bytes only: nothing here depends on how fast the machine is. A hostile
// client that ignores the stream limit is hostile_raw_http2_test's business.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "core/byte_buffer_bytes.h"
#include "core/test_util.h"
#include "server/process_metrics.h"
#include "tests/hostile/hostile_server.h"

namespace reco::hostile {
namespace {

constexpr int kConnections = 3;
constexpr int kCallsPerConnection = 60;
constexpr int kStreamsPerConnection = 8;  // the limit under test (production: 256)
constexpr uint32_t kItems = 2000;
constexpr size_t kFloodMaxIdle = 8;

struct Call {
  grpc::ClientContext context;
  grpc::ByteBuffer response;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
};

class HostileFloodTest : public ::testing::TestWithParam<MemoryMode> {};

TEST_P(HostileFloodTest, StreamLimitBoundsLeasesAndMemory) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.mode = ServingModeFor(GetParam());
  options.store.max_idle = kFloodMaxIdle;
  options.max_concurrent_streams = kStreamsPerConnection;
  options.inflight_budget_bytes = 0;  // the stream limit alone (the budget: hostile_budget_test)
  auto started = RecoServer::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  RecoServer& server = **started;

  const v1::RecommendRequest request = Request(kItems, v1::TEXT_PROFILE_REALISTIC, 3);
  const std::string expected = ExpectedBytes(request);
  const std::string request_bytes = request.SerializeAsString();

  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < kConnections; ++i) channels.push_back(ChannelTo(server));  // one connection each
  // Warm up each connection, so the baseline RSS includes what any run has.
  for (auto& channel : channels) {
    Reply warm = CallBytes(channel.get(), request_bytes, absl::Seconds(30));
    ASSERT_TRUE(warm.status.ok()) << warm.status.error_message();
  }
  const uint64_t baseline_rss = ReadProcessMetrics().rss_bytes;
  const bool peak_reset = ResetPeakRss();

  // Sample leases in use all through the flood.
  std::atomic<bool> flooding{true};
  std::atomic<uint64_t> max_in_use{0};
  std::atomic<int> samples{0};
  std::thread sampler([&] {
    while (flooding.load()) {
      uint64_t in_use = server.Stats(/*reset=*/false).store().in_use();
      uint64_t seen = max_in_use.load();
      while (in_use > seen && !max_in_use.compare_exchange_weak(seen, in_use)) {
      }
      samples.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });

  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
  for (auto& channel : channels) stubs.push_back(std::make_unique<grpc::GenericStub>(channel));
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(120);
  std::vector<std::unique_ptr<Call>> calls;
  for (int i = 0; i < kConnections * kCallsPerConnection; ++i) {
    auto call = std::make_unique<Call>();
    call->context.set_deadline(deadline);
    grpc::Slice slice(request_bytes);
    grpc::ByteBuffer buffer(&slice, 1);
    call->reader =
        stubs[i % kConnections]->PrepareUnaryCall(&call->context, "/reco.v1.Recommender/Recommend", buffer, &cq);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, reinterpret_cast<void*>(static_cast<intptr_t>(i)));
    calls.push_back(std::move(call));
  }
  int ok = 0, wrong_size = 0, wrong_bytes = 0, compared = 0;
  std::string first_error;
  for (size_t done = 0; done < calls.size(); ++done) {
    void* tag = nullptr;
    bool got = false;
    ASSERT_TRUE(cq.Next(&tag, &got));
    Call& call = *calls[reinterpret_cast<intptr_t>(tag)];
    if (!call.status.ok()) {
      if (first_error.empty()) first_error = call.status.error_message();
    } else if (call.response.Length() != expected.size()) {
      ++wrong_size;
    } else {
      ++ok;
      if (done % 50 == 0) {
        ++compared;
        if (ByteBufferBytes(call.response) != expected) ++wrong_bytes;
      }
    }
    call.response.Clear();  // the client keeps no replies: RSS is the server's doing
  }
  flooding.store(false);
  sampler.join();
  const uint64_t peak_rss = ReadProcessMetrics().peak_rss_bytes;

  EXPECT_EQ(ok, kConnections * kCallsPerConnection) << "first error: " << first_error;
  EXPECT_EQ(wrong_size, 0);
  EXPECT_EQ(wrong_bytes, 0) << "of " << compared << " compared";

  // Leases: one per RPC the server holds. The stream limit bounds the streams open at
  // once (streams x connections), but a lease is returned by gRPC's done callback,
  // which runs after the stream has closed -- by then the client may have opened the
  // next stream in that slot. So each slot can hold the lease of the RPC that just
  // ended and the one just begun. Measured: the peak was 2x (24 of 12, 96 of 48)
  // for 20-, 200- and 2,000-item replies, in both modes -- and once 49 of 48 under
  // ASan, where the done callback runs later: the lag is a matter of timing, so 2x is
  // not a guarantee. The test allows 4x, which keeps the claim that matters -- a
  // bound set by the stream limit (96), not by the 180 calls the client started.
  const uint64_t stream_bound = uint64_t{kStreamsPerConnection} * kConnections;
  const uint64_t lease_bound = 4 * stream_bound;
  EXPECT_GT(samples.load(), 0);
  EXPECT_GT(max_in_use.load(), 0u) << "the sampler never saw an RPC in flight";
  EXPECT_LE(max_in_use.load(), lease_bound) << "streams x connections = " << stream_bound;

  v1::StatsSnapshot after;
  for (int i = 0; i < 2000; ++i) {  // gRPC releases the last messages on its own threads
    after = server.Stats(false);
    if (after.store().in_use() == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(after.store().in_use(), 0u);
  EXPECT_LE(after.store().idle(), kFloodMaxIdle);
  if (GetParam() == MemoryMode::kArenaPool) {
    // PooledArenaAllocator's cap: however many calls were open, no more than max_idle
    // pooled arenas (each with its 512 KiB block) were ever made; the rest got plain
    // arenas, freed at their release.
    EXPECT_LE(after.store().created() - after.store().unpooled(), kFloodMaxIdle);
  }
  EXPECT_EQ(after.store().acquired(), after.store().released());

  // Memory bound, from the limits. Per lease in use the process holds at most: the
  // response's messages (arena space or reused heap objects: under 3x its wire size
  // -- strings, vectors and block slack), the server's serialized copy (1x) and the
  // client's received copy (1x) -- 5x; doubled for malloc slack: 10x the reply.
  // Each idle lease keeps its messages or initial block (arena_pool: 512 KiB; reuse:
  // the grown message, under 3x), so 3x each, doubled: 6x. Plus 64 MiB for gRPC's
  // per-connection buffers and glibc's per-thread arenas. With 96 leases and ~1.1 MB
  // replies that is ~1.2 GB (the peak seen was ~0.3 GB); a server that took all 180
  // calls at once would need ~2 GB by the same sum. Not under ASan: its quarantine holds freed memory.
  const uint64_t reply = expected.size();
  const uint64_t memory_bound = lease_bound * 10 * reply + kFloodMaxIdle * 6 * reply + (uint64_t{64} << 20);
  std::printf(
      "flood %s: %d calls of %zu bytes over %d connections x %d streams: max in_use %llu (bound %llu, "
      "%d samples), after: in_use %llu idle %llu; RSS baseline %.1f MiB, peak %.1f MiB (+%.1f MiB, "
      "bound +%.1f MiB)%s\n",
      std::string(MemoryModeName(GetParam())).c_str(), kConnections * kCallsPerConnection, expected.size(),
      kConnections, kStreamsPerConnection, static_cast<unsigned long long>(max_in_use.load()),
      static_cast<unsigned long long>(lease_bound), samples.load(),
      static_cast<unsigned long long>(after.store().in_use()), static_cast<unsigned long long>(after.store().idle()),
      baseline_rss / 1048576.0, peak_rss / 1048576.0, (static_cast<double>(peak_rss) - baseline_rss) / 1048576.0,
      memory_bound / 1048576.0, peak_reset ? "" : " (peak not reset: kernel refused clear_refs, peak is since start)");
#ifndef __SANITIZE_ADDRESS__
  if (peak_reset) {
    EXPECT_LE(peak_rss - std::min(peak_rss, baseline_rss), memory_bound);
  }
#endif
  ExpectWhole(server, channels[0].get(), "the flood");
}

// Not heap, arena or fragments: they pool nothing, so there is no pool bound to hold
// (fragments has no store at all). The memory a flood makes any mode hold is
// hostile_budget_test's, fragments included.
INSTANTIATE_TEST_SUITE_P(PooledModes, HostileFloodTest, ::testing::Values(MemoryMode::kReuse, MemoryMode::kArenaPool),
                         testing::ModeParamName);

}  // namespace
}  // namespace reco::hostile
