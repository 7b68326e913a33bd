// FeedTestService: the stats tests' server -- feed.v1.Feed (patterns/testing/feed.proto)
// whose GetFeed handler makes an exact, known number of allocations -- and the checks
// the in-process and the shared-library tests share (MeasureCalls, ExpectExactCounts).
//
// GetFeed: user_id "fail" -> INVALID_ARGUMENT before any work; otherwise
// post_count allocations of kBlockBytes each (malloc + free), inside a
// StatsBuildScope when the service was made with measure_build. The reply is empty.
//
// Example:
//   reco::stats_testing::FeedTestService service(/*measure_build=*/true);
//   grpc::ServerBuilder builder;
//   int port = 0;
//   builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
//   builder.RegisterService(&service);
//   reco::EnableServerStats(builder, "heap");
//   auto server = builder.BuildAndStart();
//
// Thread-safety: gRPC's threads run the handler; the helpers are for one test thread.
#ifndef ARENA_GRPC_STATS_TESTING_FEED_TEST_SERVICE_H_
#define ARENA_GRPC_STATS_TESTING_FEED_TEST_SERVICE_H_

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "core/allocation_counter.h"
#include "feed.grpc.pb.h"
#include "gtest/gtest.h"
#include "proto/stats.grpc.pb.h"
#include "server_stats.h"

namespace reco::stats_testing {

inline constexpr size_t kBlockBytes = 64;

// The allocations the tests count: opaque to the compiler, so a malloc/free pair is
// not optimised away.
inline void AllocateBlocks(uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    void* p = std::malloc(kBlockBytes);
    asm volatile("" : : "g"(p) : "memory");
    std::free(p);
  }
}

class FeedTestService final : public feed::v1::Feed::CallbackService {
 public:
  explicit FeedTestService(bool measure_build) : measure_build_(measure_build) {}

  grpc::ServerUnaryReactor* GetFeed(grpc::CallbackServerContext* context, const feed::v1::FeedRequest* request,
                                    feed::v1::FeedResponse*) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (request->user_id() == "fail") {
      reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "user_id: \"fail\" asked for an error"));
      return reactor;
    }
    if (measure_build_) {
      StatsBuildScope build;
      AllocateBlocks(request->post_count());
    } else {
      AllocateBlocks(request->post_count());
    }
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  const bool measure_build_;
};

struct RunningServer {
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<grpc::Channel> channel;
};

// Starts `service` on 127.0.0.1 (a port the OS picks); `enable` adds the stats
// (EnableServerStats, interceptors...) to the builder before it is built.
inline RunningServer StartFeedServer(grpc::Service* service, const std::function<void(grpc::ServerBuilder&)>& enable) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service);
  enable(builder);
  RunningServer running;
  running.server = builder.BuildAndStart();
  if (running.server != nullptr) {
    running.channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  }
  return running;
}

inline std::chrono::system_clock::time_point Deadline() {
  return std::chrono::system_clock::now() + std::chrono::seconds(30);  // a bound on hangs, not a timing
}

inline grpc::Status CallFeed(grpc::Channel* channel, const std::string& user_id, uint32_t post_count) {
  std::unique_ptr<feed::v1::Feed::Stub> stub =
      feed::v1::Feed::NewStub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(Deadline());
  feed::v1::FeedRequest request;
  request.set_user_id(user_id);
  request.set_post_count(post_count);
  feed::v1::FeedResponse response;
  return stub->GetFeed(&context, request, &response);
}

inline grpc::Status GetStats(grpc::Channel* channel, bool reset, v1::StatsSnapshot* snapshot) {
  std::unique_ptr<v1::ServerStats::Stub> stub =
      v1::ServerStats::NewStub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(Deadline());
  v1::GetStatsRequest request;
  request.set_reset(reset);
  return stub->GetStats(&context, request, snapshot);
}

// One measured window: snapshots at its edges, and the interposer's own process
// count read just outside them (so the server's reads fall between).
struct MeasuredWindow {
  AllocationCounts process_before, process_after;
  v1::StatsSnapshot before, after;
};

// `ok` calls of `post_count` allocations each and `failing` calls refused before any work.
inline MeasuredWindow MeasureCalls(grpc::Channel* channel, int ok, int failing, uint32_t post_count) {
  MeasuredWindow w;
  w.process_before = AllocationCounter::Process();
  EXPECT_TRUE(GetStats(channel, false, &w.before).ok());
  for (int i = 0; i < ok; ++i) EXPECT_TRUE(CallFeed(channel, "user", post_count).ok());
  for (int i = 0; i < failing; ++i) {
    EXPECT_EQ(CallFeed(channel, "fail", post_count).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  EXPECT_TRUE(GetStats(channel, false, &w.after).ok());
  w.process_after = AllocationCounter::Process();
  return w;
}

// The figures every library-built server must get exactly right over `w`.
inline void ExpectExactCounts(const MeasuredWindow& w, int ok, int failing, uint32_t post_count) {
  EXPECT_EQ(w.after.rpcs() - w.before.rpcs(), static_cast<uint64_t>(ok)) << "GetStats calls must not count";
  EXPECT_EQ(w.after.rpc_errors() - w.before.rpc_errors(), static_cast<uint64_t>(failing));
  EXPECT_EQ(w.after.rpc_invalid() - w.before.rpc_invalid(), static_cast<uint64_t>(failing));
  // The build phase: one sample per scope, the handler's allocations exactly.
  const uint64_t blocks = static_cast<uint64_t>(ok) * post_count;
  ASSERT_TRUE(w.after.has_build());
  EXPECT_EQ(w.after.build().latency().count() - w.before.build().latency().count(), static_cast<uint64_t>(ok));
  EXPECT_EQ(w.after.build().allocations().allocs() - w.before.build().allocations().allocs(), blocks);
  EXPECT_EQ(w.after.build().allocations().frees() - w.before.build().allocations().frees(), blocks);
  EXPECT_EQ(w.after.build().allocations().bytes() - w.before.build().allocations().bytes(), blocks * kBlockBytes);
  // Process-wide: the server read the counter between the test's two reads, after the
  // handlers' blocks, so its window holds at least them and at most the test's window.
  ASSERT_TRUE(w.before.has_process_allocations() && w.after.has_process_allocations());
  const AllocationCounts outer = w.process_after - w.process_before;
  const uint64_t allocs = w.after.process_allocations().allocs() - w.before.process_allocations().allocs();
  const uint64_t frees = w.after.process_allocations().frees() - w.before.process_allocations().frees();
  const uint64_t bytes = w.after.process_allocations().bytes() - w.before.process_allocations().bytes();
  EXPECT_GE(allocs, blocks);
  EXPECT_LE(allocs, outer.allocs);
  EXPECT_GE(frees, blocks);
  EXPECT_LE(frees, outer.frees);
  EXPECT_GE(bytes, blocks * kBlockBytes);
  EXPECT_LE(bytes, outer.bytes);
}

}  // namespace reco::stats_testing

#endif  // ARENA_GRPC_STATS_TESTING_FEED_TEST_SERVICE_H_
