// SPDX-License-Identifier: Apache-2.0
// Proves what pooled_arena_allocator.h claims: pooled arenas with a reused block, the
// block re-bound to the building thread, a cap on pooled arenas, and -- on a real
// in-process callback server -- zero mallocs to build and to release a 200-post reply
// whose strings are all 15 bytes or less.
#include "pooled_arena_allocator.h"

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "feed.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/local_server.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::FillFeed;
using testing::MallocCounter;
using testing::MallocCounts;
using Allocator = PooledArenaAllocator<FeedRequest, FeedResponse>;
using Holder = grpc::MessageHolder<FeedRequest, FeedResponse>;

const FeedRequest& ShortTextRequest() {
  // Every string of this reply is 15 bytes or less: nothing needs the heap.
  static const FeedRequest request = [] {
    FeedRequest r;
    r.set_user_id("u-1");
    r.set_post_count(200);
    // The first build in a process makes one-time allocations (protobuf's statics):
    // made here, outside every count, since ctest runs each test case in a process
    // of its own.
    google::protobuf::Arena arena;
    FillFeed(r, google::protobuf::Arena::CreateMessage<FeedResponse>(&arena));
    return r;
  }();
  return request;
}

MallocCounts Since(const MallocCounts& before) { return MallocCounter::ThisThread() - before; }

TEST(PooledArenaAllocatorTest, RequestAndResponseLiveOnOnePooledArena) {
  Allocator allocator;
  Holder* holder = allocator.AllocateMessages();
  google::protobuf::Arena* arena = holder->response()->GetArena();
  ASSERT_NE(arena, nullptr);
  EXPECT_EQ(holder->request()->GetArena(), arena);
  FillFeed(ShortTextRequest(), holder->response());
  std::vector<std::string> stray = testing::MessagesNotOnArena(*holder->response(), arena);
  EXPECT_TRUE(stray.empty()) << stray.size() << " messages off the arena, first: " << stray[0];
  holder->Release();

  // The next RPC gets the same holder and arena back, empty.
  Holder* again = allocator.AllocateMessages();
  EXPECT_EQ(again, holder);
  EXPECT_EQ(again->response()->GetArena(), arena);
  EXPECT_EQ(again->response()->posts_size(), 0);
  again->Release();

  PooledArenaStats s = allocator.stats();
  EXPECT_EQ(s.allocated, 2u);
  EXPECT_EQ(s.released, 2u);
  EXPECT_EQ(s.arenas_created, 1u);
  EXPECT_EQ(s.unpooled, 0u);
  EXPECT_EQ(s.idle, 1u);
  EXPECT_EQ(s.overflows, 0u);
}

// gRPC's shape: the holder is taken and the response built on one thread, released on
// another. After the first RPC (which makes the pooled arena: its holder and block),
// neither building nor releasing mallocs. The builder is this test's thread, alive
// throughout: a thread that has exited may leave its thread-local storage to the next
// one, and protobuf would then take the two for the same thread.
TEST(PooledArenaAllocatorTest, BuildAndReleaseMakeNoMallocWhenAnotherThreadReleases) {
  Allocator allocator;
  for (int rpc = 0; rpc < 4; ++rpc) {
    MallocCounts before = MallocCounter::ThisThread();
    Holder* holder = allocator.AllocateMessages();
    FillFeed(ShortTextRequest(), holder->response());
    MallocCounts build = Since(before);
    MallocCounts release;
    std::thread releaser([&] {
      MallocCounts before = MallocCounter::ThisThread();
      holder->Release();
      release = Since(before);
    });
    releaser.join();
    if (rpc == 0) continue;  // the first RPC made the pooled arena
    EXPECT_EQ(build.allocs, 0u) << "rpc " << rpc;
    EXPECT_EQ(release.allocs, 0u) << "rpc " << rpc;
    EXPECT_EQ(release.frees, 0u) << "rpc " << rpc;
  }
}

// The trap the allocator avoids, shown on a bare BlockArena: after a Reset() on
// another thread, building here goes to fresh heap blocks; after BindToThisThread()
// (what AllocateMessages() does) it fits in the block again.
TEST(PooledArenaAllocatorTest, TheTrapResetOnAnotherThreadSendsTheBuildToTheHeap) {
  BlockArena arena(512 * 1024);
  const FeedRequest& request = ShortTextRequest();  // its warm-up is not counted
  auto build_here = [&] {
    MallocCounts before = MallocCounter::ThisThread();
    auto* response = google::protobuf::Arena::CreateMessage<FeedResponse>(arena.get());
    FillFeed(request, response);
    return Since(before).allocs;
  };
  EXPECT_EQ(build_here(), 0u);  // built on the thread that made the arena
  std::thread([&] { arena.get()->Reset(); }).join();
  const uint64_t after_foreign_reset = build_here();
  EXPECT_GT(after_foreign_reset, 0u) << "protobuf no longer binds the block to the resetting thread?";
  arena.get()->Reset();
  std::thread([&] { arena.get()->Reset(); }).join();
  arena.BindToThisThread();
  EXPECT_EQ(build_here(), 0u);
  std::printf("200-post short-text reply after a Reset() on another thread: %llu mallocs; re-bound: 0\n",
              static_cast<unsigned long long>(after_foreign_reset));
}

TEST(PooledArenaAllocatorTest, AtMostMaxArenasArePooledTheRestGetPlainArenas) {
  PooledArenaOptions options;
  options.initial_block_bytes = 64 * 1024;
  options.max_arenas = 2;
  Allocator allocator(options);
  std::vector<Holder*> in_flight;
  for (int i = 0; i < 3; ++i) in_flight.push_back(allocator.AllocateMessages());
  EXPECT_TRUE(static_cast<Allocator::Holder*>(in_flight[0])->pooled());
  EXPECT_TRUE(static_cast<Allocator::Holder*>(in_flight[1])->pooled());
  EXPECT_FALSE(static_cast<Allocator::Holder*>(in_flight[2])->pooled());
  for (Holder* h : in_flight) FillFeed(ShortTextRequest(), h->response());  // all usable
  for (Holder* h : in_flight) h->Release();
  PooledArenaStats s = allocator.stats();
  EXPECT_EQ(s.arenas_created, 2u);
  EXPECT_EQ(s.unpooled, 1u);
  EXPECT_EQ(s.idle, 2u);  // the plain arena was freed at its release

  for (int i = 0; i < 10; ++i) allocator.AllocateMessages()->Release();
  s = allocator.stats();
  EXPECT_EQ(s.arenas_created, 2u);  // the pool served them all
  EXPECT_EQ(s.unpooled, 1u);
  EXPECT_EQ(s.allocated, 13u);
  EXPECT_EQ(s.released, 13u);
}

TEST(PooledArenaAllocatorTest, AResponseLargerThanTheBlockSpillsAndReleaseFreesTheSpill) {
  PooledArenaOptions options;
  options.initial_block_bytes = 16 * 1024;  // far too small for 200 posts
  Allocator allocator(options);
  allocator.AllocateMessages()->Release();          // make the pooled arena
  const FeedRequest& request = ShortTextRequest();  // its warm-up is not counted
  MallocCounts before = MallocCounter::ThisThread();
  Holder* holder = allocator.AllocateMessages();
  FillFeed(request, holder->response());
  MallocCounts build = Since(before);
  before = MallocCounter::ThisThread();
  holder->Release();
  MallocCounts release = Since(before);
  EXPECT_GT(build.allocs, 0u);
  EXPECT_EQ(release.frees, build.allocs) << "Release() must free every spilled block";
  PooledArenaStats s = allocator.stats();
  EXPECT_EQ(s.overflows, 1u);
  EXPECT_EQ(s.grown, 0u) << "growth is off by default";
  EXPECT_EQ(s.block_bytes, options.initial_block_bytes);
  EXPECT_GT(s.space_allocated, options.initial_block_bytes);
  EXPECT_LE(s.space_used, s.space_allocated);
}

// Growth on: the reply that spilled gives its arena a block it fits in, so the next
// reply that large makes no malloc at all (short text), and spills no more.
TEST(PooledArenaAllocatorTest, AnArenaThatSpilledGrowsToFitTheNextReply) {
  PooledArenaOptions options;
  options.initial_block_bytes = 16 * 1024;
  options.max_arenas = 1;
  options.max_block_bytes = 1 << 20;
  options.max_pool_bytes = 1 << 20;
  Allocator allocator(options);
  const FeedRequest& request = ShortTextRequest();
  Holder* first = allocator.AllocateMessages();
  FillFeed(request, first->response());
  const uint64_t space = first->response()->GetArena()->SpaceAllocated();
  first->Release();
  PooledArenaStats s = allocator.stats();
  EXPECT_EQ(s.overflows, 1u);
  EXPECT_EQ(s.grown, 1u);
  EXPECT_EQ(s.block_bytes, (space + space / 8 + 65535) / 65536 * 65536) << "the space taken and an eighth, in 64 KiB";

  MallocCounts before = MallocCounter::ThisThread();
  Holder* second = allocator.AllocateMessages();
  FillFeed(request, second->response());
  MallocCounts build = Since(before);
  second->Release();
  EXPECT_EQ(build.allocs, 0u) << "the grown block holds the whole reply";
  s = allocator.stats();
  EXPECT_EQ(s.overflows, 1u);
  EXPECT_EQ(s.grown, 1u);
}

// Growth stops at max_pool_bytes: with room for one arena's growth, exactly one of
// four spilled arenas grows, and the pool's blocks never pass the cap.
TEST(PooledArenaAllocatorTest, GrowthStopsAtThePoolCap) {
  PooledArenaOptions options;
  options.initial_block_bytes = 16 * 1024;
  options.max_arenas = 1;
  options.max_block_bytes = 1 << 20;
  options.max_pool_bytes = 1 << 20;
  uint64_t grown_block = 0;
  {  // the block one 200-post reply grows an arena to
    Allocator probe(options);
    Holder* h = probe.AllocateMessages();
    FillFeed(ShortTextRequest(), h->response());
    h->Release();
    grown_block = probe.stats().block_bytes;
  }
  options.max_arenas = 4;
  options.max_pool_bytes = 4 * options.initial_block_bytes + (grown_block - options.initial_block_bytes);
  Allocator allocator(options);
  for (int round = 0; round < 3; ++round) {
    std::vector<Holder*> in_flight;
    for (int i = 0; i < 4; ++i) in_flight.push_back(allocator.AllocateMessages());
    for (Holder* h : in_flight) FillFeed(ShortTextRequest(), h->response());
    for (Holder* h : in_flight) h->Release();
    EXPECT_LE(allocator.stats().block_bytes, options.max_pool_bytes);
  }
  PooledArenaStats s = allocator.stats();
  EXPECT_EQ(s.grown, 1u);
  EXPECT_EQ(s.block_bytes, options.max_pool_bytes);
  EXPECT_EQ(s.overflows, 4u + 3u + 3u) << "the three arenas left small spill every round";
}

// --- On a real server ---------------------------------------------------------------

// Wraps the allocator to count, on gRPC's own threads, the allocations of
// AllocateMessages() and of each holder's Release() (the wrapper's own holder is
// outside the counted spans).
class CountingAllocator final : public grpc::MessageAllocator<FeedRequest, FeedResponse> {
 public:
  explicit CountingAllocator(Allocator* inner) : inner_(inner) {}

  Holder* AllocateMessages() override {
    MallocCounts before = MallocCounter::ThisThread();
    Holder* inner = inner_->AllocateMessages();
    MallocCounts cost = Since(before);
    auto* holder = new Counted(this, inner);
    holder->acquire = cost;
    return holder;
  }

  // Per RPC, in release order: AllocateMessages() cost and Release() cost.
  struct Costs {
    MallocCounts acquire, release;
  };
  std::vector<Costs> costs() {
    std::lock_guard<std::mutex> lock(mu_);
    return costs_;
  }

 private:
  struct Counted final : Holder {
    Counted(CountingAllocator* owner, Holder* inner) : owner(owner), inner(inner) {
      set_request(inner->request());
      set_response(inner->response());
    }
    void Release() override {
      MallocCounts before = MallocCounter::ThisThread();
      inner->Release();
      MallocCounts cost = Since(before);
      {
        std::lock_guard<std::mutex> lock(owner->mu_);
        owner->costs_.push_back({acquire, cost});
      }
      delete this;
    }
    CountingAllocator* const owner;
    Holder* const inner;
    MallocCounts acquire;
  };

  Allocator* const inner_;
  std::mutex mu_;
  std::vector<Costs> costs_;
};

// The greeter-shaped handler, counting its own build on its thread.
class CountingFeed final : public feed::v1::Feed::CallbackService {
 public:
  grpc::ServerUnaryReactor* GetFeed(grpc::CallbackServerContext* context, const FeedRequest* request,
                                    FeedResponse* response) override {
    MallocCounts before = MallocCounter::ThisThread();
    FillFeed(*request, response);
    MallocCounts build = Since(before);
    {
      std::lock_guard<std::mutex> lock(mu_);
      builds_.push_back(build);
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  std::vector<MallocCounts> builds() {
    std::lock_guard<std::mutex> lock(mu_);
    return builds_;
  }

 private:
  std::mutex mu_;
  std::vector<MallocCounts> builds_;
};

TEST(PooledArenaAllocatorServerTest, ShortTextRepliesCostNoMallocToBuildOrRelease) {
  constexpr int kWarmup = 5, kRpcs = 20;
  Allocator allocator;
  {
    // Four pooled arenas made up front: a release that lags its call must not make
    // the measured calls create one.
    std::vector<Holder*> held;
    for (int i = 0; i < 4; ++i) held.push_back(allocator.AllocateMessages());
    for (Holder* h : held) h->Release();
  }
  CountingAllocator counting(&allocator);
  CountingFeed service;
  service.SetMessageAllocatorFor_GetFeed(&counting);
  testing::LocalServer served([&](grpc::ServerBuilder* builder) { builder->RegisterService(&service); });
  ASSERT_TRUE(served.started());
  FeedResponse expected;
  FillFeed(ShortTextRequest(), &expected);
  for (int i = 0; i < kWarmup + kRpcs; ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    FeedResponse reply;
    grpc::Status status = served.stub()->GetFeed(&context, ShortTextRequest(), &reply);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(reply.SerializeAsString(), expected.SerializeAsString()) << "rpc " << i;
  }
  served.Stop();  // every call is complete and released

  std::vector<CountingAllocator::Costs> costs = counting.costs();
  std::vector<MallocCounts> builds = service.builds();
  ASSERT_EQ(costs.size(), static_cast<size_t>(kWarmup + kRpcs));
  ASSERT_EQ(builds.size(), costs.size());
  // Costs are listed in release order, builds in call order; after the warm-up every
  // one of them must be zero.
  for (int i = kWarmup; i < kWarmup + kRpcs; ++i) {
    EXPECT_EQ(costs[i].acquire.allocs + builds[i].allocs, 0u) << "build of rpc " << i;
    EXPECT_EQ(costs[i].release.allocs, 0u) << "release of rpc " << i;
    EXPECT_EQ(costs[i].release.frees, 0u) << "release of rpc " << i;
  }
  PooledArenaStats s = allocator.stats();
  EXPECT_EQ(s.allocated, s.released);
  EXPECT_EQ(s.arenas_created, 4u);
  EXPECT_EQ(s.unpooled, 0u);
  EXPECT_EQ(s.overflows, 0u);
}

}  // namespace
}  // namespace reco::patterns
