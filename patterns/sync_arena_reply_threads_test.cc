// SPDX-License-Identifier: Apache-2.0
// Proves sync_arena_reply.h's threading without a server, so that it can be judged
// under ThreadSanitizer: one SyncArenaReplies shared by handler threads (as gRPC's sync
// server runs handlers on several threads at once), an arena whose last call ended on
// another thread, and more threads than pooled arenas. The handler here is the
// header's: parse the request's bytes, build on the call's arena, serialize.
#include "sync_arena_reply.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "feed.pb.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/malloc_counter.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::MallocCounter;
using testing::MallocCounts;

constexpr int kPosts = 50;
constexpr int kThreads = 4;
constexpr int kCallsPerThread = 40;

FeedRequest Request() {
  FeedRequest request;
  request.set_user_id("user-7");
  request.set_post_count(kPosts);
  return request;
}

grpc::ByteBuffer BufferOf(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string BytesOf(const grpc::ByteBuffer& buffer) {
  grpc::Slice slice;
  EXPECT_TRUE(buffer.DumpToSingleSlice(&slice).ok());
  return std::string(reinterpret_cast<const char*>(slice.begin()), slice.size());
}

// The header's handler: what a SyncRawService method does per call. `pooled` tells
// whether the call had a pooled arena.
grpc::Status Handle(SyncArenaReplies& replies, const grpc::ByteBuffer& request_bytes, grpc::ByteBuffer* reply_bytes,
                    bool* pooled = nullptr) {
  SyncArenaReplies::Call call = replies.Begin();
  if (pooled != nullptr) *pooled = call.pooled();
  auto* request = call.Create<FeedRequest>();
  grpc::Status status = ParseRawRequest(request_bytes, request);
  if (!status.ok()) return status;
  auto* reply = call.Create<FeedResponse>();
  testing::FillFeed(*request, reply);
  return call.Serialize(*reply, reply_bytes);
}

// Ends `count` calls at once: the pool then holds `count` pooled arenas.
void MakeArenas(SyncArenaReplies& replies, int count) {
  std::vector<std::thread> holders;
  std::atomic<int> begun{0};
  for (int i = 0; i < count; ++i) {
    holders.emplace_back([&] {
      SyncArenaReplies::Call call = replies.Begin();
      begun.fetch_add(1);
      while (begun.load() < count) std::this_thread::yield();  // all in use at once
    });
  }
  for (std::thread& t : holders) t.join();
}

TEST(SyncArenaRepliesThreadsTest, HandlerThreadsShareThePoolWithTwoMallocsPerCallAfterWarmUp) {
  SyncArenaReplies replies;
  MakeArenas(replies, kThreads);
  const std::string request_bytes = Request().SerializeAsString();
  FeedResponse expected_message;
  testing::FillFeed(Request(), &expected_message);
  const std::string expected = expected_message.SerializeAsString();

  std::vector<std::vector<MallocCounts>> counts(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const grpc::ByteBuffer in = BufferOf(request_bytes);
      counts[t].reserve(kCallsPerThread);
      for (int i = 0; i < kCallsPerThread; ++i) {
        grpc::ByteBuffer out;
        const MallocCounts before = MallocCounter::ThisThread();
        grpc::Status status = Handle(replies, in, &out);
        counts[t].push_back(MallocCounter::ThisThread() - before);
        ASSERT_TRUE(status.ok()) << status.error_message();
        ASSERT_EQ(BytesOf(out), expected) << "thread " << t << ", call " << i;
      }
    });
  }
  for (std::thread& t : threads) t.join();

  for (int t = 0; t < kThreads; ++t) {
    for (int i = 2; i < kCallsPerThread; ++i) {  // two calls of warm-up per thread
      EXPECT_EQ(counts[t][i].allocs, 2u) << "thread " << t << ", call " << i << ": only the slice and byte buffer";
      EXPECT_EQ(counts[t][i].frees, 0u) << "thread " << t << ", call " << i;
    }
  }
  SyncArenaRepliesStats s = replies.stats();
  EXPECT_EQ(s.calls, static_cast<uint64_t>(kThreads + kThreads * kCallsPerThread));
  EXPECT_EQ(s.arenas_created, static_cast<uint64_t>(kThreads));
  EXPECT_EQ(s.unpooled, 0u);
  EXPECT_EQ(s.overflows, 0u);
  EXPECT_EQ(s.idle, static_cast<uint64_t>(kThreads));
}

// The trap: the pooled arena's last call ended (and Reset it) on another thread.
// Begin() binds its block to this thread again, so this build still mallocs nothing.
// The builder is this test's thread, alive throughout (an exited thread's storage may
// go to the next thread, which protobuf would take for the same thread).
TEST(SyncArenaRepliesThreadsTest, ACallEndedOnAnotherThreadLeavesTheBlockToTheNextBuilder) {
  SyncArenaReplies replies;
  const FeedRequest request = Request();
  auto build = [&] {
    SyncArenaReplies::Call call = replies.Begin();
    testing::FillFeed(request, call.Create<FeedResponse>());
  };
  build();  // makes the pooled arena and warms up
  for (int round = 0; round < 3; ++round) {
    std::thread(build).join();  // ends the call, and its Reset(), on another thread
    const MallocCounts before = MallocCounter::ThisThread();
    build();
    const MallocCounts used = MallocCounter::ThisThread() - before;
    EXPECT_EQ(used.allocs, 0u) << "round " << round << ": the build went to heap blocks";
    EXPECT_EQ(used.frees, 0u) << "round " << round;
  }
  EXPECT_EQ(replies.stats().arenas_created, 1u);
  EXPECT_EQ(replies.stats().overflows, 0u);
}

TEST(SyncArenaRepliesThreadsTest, MoreThreadsThanArenasGetPlainArenasAndWholeReplies) {
  SyncArenaRepliesOptions options;
  options.max_arenas = 1;
  SyncArenaReplies replies(options);
  const std::string request_bytes = Request().SerializeAsString();
  FeedResponse expected_message;
  testing::FillFeed(Request(), &expected_message);
  const std::string expected = expected_message.SerializeAsString();
  std::atomic<uint64_t> unpooled{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      const grpc::ByteBuffer in = BufferOf(request_bytes);
      for (int i = 0; i < kCallsPerThread; ++i) {
        grpc::ByteBuffer out;
        bool pooled = true;
        ASSERT_TRUE(Handle(replies, in, &out, &pooled).ok());
        ASSERT_EQ(BytesOf(out), expected);
        if (!pooled) unpooled.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  SyncArenaRepliesStats s = replies.stats();
  EXPECT_EQ(s.calls, static_cast<uint64_t>(kThreads * kCallsPerThread));
  EXPECT_EQ(s.arenas_created, 1u);
  EXPECT_EQ(s.unpooled, unpooled.load());
  EXPECT_EQ(s.idle, 1u);  // plain arenas were freed as their calls ended
}

TEST(SyncArenaRepliesThreadsTest, RefusedCallsFromManyThreadsGiveEveryArenaBack) {
  SyncArenaReplies replies;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      const grpc::ByteBuffer garbage = BufferOf(std::string("\xff\xff\xff\xff", 4));
      const grpc::ByteBuffer never_arrived;
      for (int i = 0; i < kCallsPerThread; ++i) {
        grpc::ByteBuffer out;
        grpc::Status status = Handle(replies, i % 2 == 0 ? garbage : never_arrived, &out);
        ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        ASSERT_FALSE(out.Valid()) << "a refused call left reply bytes";
      }
    });
  }
  for (std::thread& t : threads) t.join();
  SyncArenaRepliesStats s = replies.stats();
  EXPECT_EQ(s.calls, static_cast<uint64_t>(kThreads * kCallsPerThread));
  EXPECT_EQ(s.idle, s.arenas_created);
  EXPECT_LE(s.arenas_created, static_cast<uint64_t>(kThreads));
}

}  // namespace
}  // namespace reco::patterns
