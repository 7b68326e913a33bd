#include "core/message_store.h"

#include <thread>

#include "core/allocation_counter.h"

#include "core/response_builder.h"
#include "core/test_util.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

using google::protobuf::Arena;

v1::RecommendRequest Request(uint32_t items) {
  v1::RecommendRequest r;
  r.set_item_count(items);
  return r;
}

class ArenaModesTest : public ::testing::TestWithParam<MemoryMode> {};

TEST_P(ArenaModesTest, EverySubMessageIsOnTheLeaseArena) {
  auto store = MakeMessageStore(GetParam(), {});
  for (int round = 0; round < 3; ++round) {  // also after Reset() in arena_pool
    MessageLease lease = store->Acquire();
    ASSERT_NE(lease.arena, nullptr);
    EXPECT_EQ(lease.request->GetArena(), lease.arena);
    BuildResponse(DefaultCatalogue(), Request(50), lease.response);
    std::vector<std::string> stray = testing::MessagesNotOnArena(*lease.response, lease.arena);
    EXPECT_TRUE(stray.empty()) << stray.size() << " messages off the arena, first: " << stray[0];
    // 1 response + 50 items * 6 sub-messages + 50 items + metadata
    EXPECT_EQ(testing::AllMessages(*lease.response).size(), 1u + 50 * 7 + 1);
    store->Release(lease);
  }
}

INSTANTIATE_TEST_SUITE_P(Arenas, ArenaModesTest, ::testing::Values(MemoryMode::kArena, MemoryMode::kArenaPool),
                         testing::ModeParamName);

// The protobuf 3.21 trap this project's arena modes avoid: Arena::Create<T> on a
// message type constructs it WITHOUT the arena pointer, so its sub-messages land on
// the heap. The tree check above would catch a store that used Create.
TEST(ArenaTrapTest, CreateInsteadOfCreateMessageIsCaughtByTheTreeCheck) {
  Arena arena;
  auto* wrong = Arena::Create<v1::RecommendResponse>(&arena);
  BuildResponse(DefaultCatalogue(), Request(3), wrong);
  EXPECT_EQ(wrong->GetArena(), nullptr);
  EXPECT_FALSE(testing::MessagesNotOnArena(*wrong, &arena).empty());

  auto* right = Arena::CreateMessage<v1::RecommendResponse>(&arena);
  BuildResponse(DefaultCatalogue(), Request(3), right);
  EXPECT_TRUE(testing::MessagesNotOnArena(*right, &arena).empty());
}

TEST(HeapModesTest, HeapAndReuseHaveNoArena) {
  for (MemoryMode mode : {MemoryMode::kHeap, MemoryMode::kReuse}) {
    auto store = MakeMessageStore(mode, {});
    MessageLease lease = store->Acquire();
    EXPECT_EQ(lease.arena, nullptr);
    BuildResponse(DefaultCatalogue(), Request(5), lease.response);
    EXPECT_TRUE(testing::MessagesNotOnArena(*lease.response, nullptr).empty());
    store->Release(lease);
  }
}

TEST(PoolTest, ArenaPoolReusesArenasAndBoundsTheIdleOnes) {
  MessageStoreOptions options;
  options.max_idle = 2;
  options.initial_block_bytes = 64 * 1024;
  auto store = MakeMessageStore(MemoryMode::kArenaPool, options);
  std::vector<MessageLease> leases;
  for (int i = 0; i < 5; ++i) leases.push_back(store->Acquire());
  for (const MessageLease& l : leases) store->Release(l);
  MessageStoreStats s = store->Stats();
  EXPECT_EQ(s.created, 5u);
  EXPECT_EQ(s.idle, 2u);  // three were freed on release
  for (int i = 0; i < 10; ++i) store->Release(store->Acquire());
  s = store->Stats();
  EXPECT_EQ(s.created, 5u);  // no new arenas: the pool served them
  EXPECT_EQ(s.acquired, 15u);
  EXPECT_EQ(s.released, 15u);
}

TEST(PoolTest, ArenaPoolCountsResponsesThatOutgrowTheInitialBlock) {
  MessageStoreOptions options;
  options.initial_block_bytes = 16 * 1024;  // far too small for 200 items
  auto store = MakeMessageStore(MemoryMode::kArenaPool, options);
  MessageLease lease = store->Acquire();
  BuildResponse(DefaultCatalogue(), Request(200), lease.response);
  store->Release(lease);
  MessageStoreStats s = store->Stats();
  EXPECT_EQ(s.arena_overflows, 1u);
  EXPECT_GT(s.arena_space_allocated, options.initial_block_bytes);
  EXPECT_GT(s.arena_space_used, 0u);
  EXPECT_LE(s.arena_space_used, s.arena_space_allocated);
}

// In a server, the thread that releases an arena (gRPC finishing the call) is rarely
// the one that builds the next response in it. protobuf 3.21 gives the initial block
// to the thread that called Reset(), so without care every other thread's
// allocations go to fresh heap blocks: about 30 mallocs per compact response
// instead of 0. ArenaPoolStore::Acquire re-binds the block to the building thread.
TEST(PoolTest, ArenaPoolBuildsWithoutMallocWhenAnotherThreadReleased) {
  auto store = MakeMessageStore(MemoryMode::kArenaPool, {});
  v1::RecommendRequest request = Request(200);
  request.set_text_profile(v1::TEXT_PROFILE_COMPACT);
  for (int round = 0; round < 3; ++round) {
    AllocationCounts before = AllocationCounter::ThisThread();
    MessageLease lease = store->Acquire();
    BuildResponse(DefaultCatalogue(), request, lease.response);
    AllocationCounts build = AllocationCounter::ThisThread() - before;
    if (round > 0) {  // round 0 creates the arena
      EXPECT_EQ(build.allocs, 0u) << "round " << round;
    }
    std::thread releaser([&] { store->Release(lease); });
    releaser.join();
  }
}

TEST(MemoryModeTest, NamesRoundTrip) {
  for (MemoryMode mode : AllMemoryModes()) {
    MemoryMode parsed;
    ASSERT_TRUE(ParseMemoryMode(MemoryModeName(mode), &parsed));
    EXPECT_EQ(parsed, mode);
  }
  MemoryMode m;
  EXPECT_FALSE(ParseMemoryMode("arena-pool", &m));
}

}  // namespace
}  // namespace reco
