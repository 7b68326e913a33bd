// SPDX-License-Identifier: Apache-2.0
// The threading of async_arena_call.h without a gRPC server, so that ThreadSanitizer
// can judge it (labelled tsan). A serving thread's call, step by step as the pattern
// runs it: take the messages from the pool when the call is armed, parse the request
// (gRPC does, on the thread that takes the call's tag), build the reply, serialize it
// (Finish), give the messages back (Finish's tag) -- all on the thread that serves the
// queue, while the pooled arenas pass between serving threads through the pool.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "async_arena_call.h"
#include "feed.pb.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/malloc_counter.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::MallocCounter;
using testing::MallocCounts;
using Allocator = PooledArenaAllocator<FeedRequest, FeedResponse>;
using Holder = grpc::MessageHolder<FeedRequest, FeedResponse>;

MallocCounts Since(const MallocCounts& before) { return MallocCounter::ThisThread() - before; }

FeedRequest RequestFor(int i) {
  FeedRequest request;
  request.set_user_id("u" + std::to_string(i));  // 15 bytes or less: no heap payload
  request.set_post_count(200);
  return request;
}

// A request's bytes and its reply's, made before anything is counted (this also
// warms up the process: the first FillFeed makes one-time allocations).
struct Wire {
  std::string request;
  std::string reply;
};
std::vector<Wire> MakeWire(int calls) {
  std::vector<Wire> wire;
  for (int i = 0; i < calls; ++i) {
    FeedResponse reply;
    testing::FillFeed(RequestFor(i), &reply);
    wire.push_back({RequestFor(i).SerializeAsString(), reply.SerializeAsString()});
  }
  return wire;
}

// What one call cost on its serving thread.
struct CallCost {
  MallocCounts messages;  // parse and build, on the arena
  MallocCounts release;   // Reset() and back to the pool
  bool pooled = false;
  bool reply_right = false;
};

// One call, as a serving thread runs it.
CallCost ServeOne(Allocator* allocator, const Wire& wire) {
  CallCost cost;
  Holder* messages = allocator->AllocateMessages();  // armed here, so bound here
  cost.pooled = static_cast<Allocator::Holder*>(messages)->pooled();
  const MallocCounts before = MallocCounter::ThisThread();
  const bool parsed = messages->request()->ParseFromString(wire.request);
  testing::FillFeed(*messages->request(), messages->response());
  cost.messages = Since(before);
  cost.reply_right = parsed && messages->response()->SerializeAsString() == wire.reply;  // Finish
  const MallocCounts before_release = MallocCounter::ThisThread();
  messages->Release();
  cost.release = Since(before_release);
  return cost;
}

// Two serving threads take turns on a pool of one arena, so every call takes the arena
// the other thread has just Reset(): the re-binding at the take is all that keeps the
// build in the block. Every call -- the first on each thread too -- parses and builds
// with no malloc, and gives the arena back with no malloc and no free.
TEST(AsyncArenaCallThreadsTest, ServingThreadsTakingTurnsOnOneArenaMallocNothing) {
  constexpr int kCallsPerThread = 20;
  const std::vector<Wire> wire = MakeWire(2 * kCallsPerThread);
  PooledArenaOptions options;
  options.max_arenas = 1;
  Allocator allocator(options);
  std::mutex mu;
  std::condition_variable turn_changed;
  int turn = 0;  // call number; thread (turn % 2) serves it
  std::vector<CallCost> costs(wire.size());
  auto serve = [&](int parity) {
    for (int k = 0; k < kCallsPerThread; ++k) {
      const int call = 2 * k + parity;
      {
        std::unique_lock<std::mutex> lock(mu);
        turn_changed.wait(lock, [&] { return turn == call; });
      }
      costs[call] = ServeOne(&allocator, wire[call]);
      {
        std::lock_guard<std::mutex> lock(mu);
        ++turn;
      }
      turn_changed.notify_all();
    }
  };
  std::thread even(serve, 0), odd(serve, 1);
  even.join();
  odd.join();

  for (size_t i = 0; i < costs.size(); ++i) {
    EXPECT_TRUE(costs[i].pooled) << "call " << i;
    EXPECT_TRUE(costs[i].reply_right) << "call " << i;
    EXPECT_EQ(costs[i].messages.allocs, 0u) << "parse and build of call " << i;
    EXPECT_EQ(costs[i].messages.frees, 0u) << "parse and build of call " << i;
    // The first call made the pooled arena; its release, like every other, is free.
    EXPECT_EQ(costs[i].release.allocs, 0u) << "release of call " << i;
    EXPECT_EQ(costs[i].release.frees, 0u) << "release of call " << i;
  }
  const PooledArenaStats s = allocator.stats();
  EXPECT_EQ(s.allocated, wire.size());
  EXPECT_EQ(s.released, wire.size());
  EXPECT_EQ(s.arenas_created, 1u);
  EXPECT_EQ(s.unpooled, 0u);
  EXPECT_EQ(s.idle, 1u);
}

// Serving threads running freely on a pool smaller than their number: a call that
// finds the pool empty gets a plain arena, counted. Counts are exact whatever the
// interleaving: every pooled call builds with no malloc, every plain one mallocs its
// blocks, and pooled plus plain is every call.
TEST(AsyncArenaCallThreadsTest, ThreadsBeyondThePoolGetPlainArenasAndEveryArenaReturns) {
  constexpr int kThreads = 3;
  constexpr int kCallsPerThread = 100;
  const std::vector<Wire> wire = MakeWire(kCallsPerThread);
  PooledArenaOptions options;
  options.max_arenas = 2;
  Allocator allocator(options);
  std::vector<std::vector<CallCost>> costs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) costs[t].push_back(ServeOne(&allocator, wire[i]));
    });
  }
  for (std::thread& thread : threads) thread.join();

  uint64_t pooled = 0, plain = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kCallsPerThread; ++i) {
      const CallCost& c = costs[t][i];
      EXPECT_TRUE(c.reply_right) << "thread " << t << " call " << i;
      if (c.pooled) {
        ++pooled;
        EXPECT_EQ(c.messages.allocs, 0u) << "thread " << t << " call " << i;
      } else {
        ++plain;
        EXPECT_GT(c.messages.allocs, 0u) << "thread " << t << " call " << i;
      }
    }
  }
  const PooledArenaStats s = allocator.stats();
  EXPECT_EQ(pooled + plain, static_cast<uint64_t>(kThreads * kCallsPerThread));
  EXPECT_EQ(s.allocated, pooled + plain);
  EXPECT_EQ(s.released, s.allocated);
  EXPECT_EQ(s.unpooled, plain);
  EXPECT_LE(s.arenas_created, 2u);
  EXPECT_EQ(s.idle, s.arenas_created);  // every pooled arena is back
}

// Why a call must be armed on the thread that serves it: messages taken on one thread
// and built on another go to fresh heap blocks (protobuf 3.21 gives the block to the
// thread that took them). One completion queue per thread is what prevents this.
TEST(AsyncArenaCallThreadsTest, TheTrapACallArmedOnAnotherThreadBuildsOnTheHeap) {
  const std::vector<Wire> wire = MakeWire(1);
  Allocator allocator;
  allocator.AllocateMessages()->Release();  // the pooled arena made, outside the counts
  Holder* messages = nullptr;
  std::thread([&] { messages = allocator.AllocateMessages(); }).join();  // armed elsewhere
  MallocCounts before = MallocCounter::ThisThread();
  ASSERT_TRUE(messages->request()->ParseFromString(wire[0].request));
  testing::FillFeed(*messages->request(), messages->response());
  const MallocCounts foreign = Since(before);
  messages->Release();
  EXPECT_GT(foreign.allocs, 0u) << "protobuf no longer binds the block to the thread that reset it?";

  messages = allocator.AllocateMessages();  // armed here, as the pattern does
  before = MallocCounter::ThisThread();
  ASSERT_TRUE(messages->request()->ParseFromString(wire[0].request));
  testing::FillFeed(*messages->request(), messages->response());
  const MallocCounts own = Since(before);
  messages->Release();
  EXPECT_EQ(own.allocs, 0u);
  std::printf("200-post short reply built on a call armed on another thread: %llu mallocs; armed here: %llu\n",
              static_cast<unsigned long long>(foreign.allocs), static_cast<unsigned long long>(own.allocs));
}

}  // namespace
}  // namespace reco::patterns
