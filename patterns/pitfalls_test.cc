// SPDX-License-Identifier: Apache-2.0
// The arena pitfalls docs/patterns.md lists, each proven here with exact counts
// (protobuf 3.21). The cross-arena and Reset() pitfalls are proven next to their
// patterns: append_best_test.cc and arena_batch_test.cc.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "core/allocation_counter.h"
#include "core/test_util.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "proto/reco.pb.h"

namespace reco::patterns {
namespace {

using google::protobuf::Arena;
using v1::Item;

constexpr char k15Bytes[] = "fifteen-bytes!!";    // fits libstdc++'s small-string buffer
constexpr char k16Bytes[] = "sixteen-bytes!!!";   // one byte too many
constexpr char kLongTitle[] = "a title longer than fifteen bytes";  // 33 bytes

using testing::RoomyArena;

AllocationCounts Since(const AllocationCounts& before) { return AllocationCounter::ThisThread() - before; }

void FillShort(Item* item) {
  item->set_item_id("i-1");
  item->mutable_price()->set_currency_code("EUR");
  item->mutable_image()->set_width(640);
  item->add_tags("new");
}

// Arena::Create<T> treats a message as a black box: its memory comes from the arena
// but the message is built WITHOUT the arena pointer, so GetArena() is null and every
// sub-object goes to the heap. Arena::CreateMessage<T> is the call that works in 3.21.
TEST(PitfallsTest, CreateBuildsTheMessageWithoutTheArena) {
  RoomyArena arena;
  AllocationCounts before = AllocationCounter::ThisThread();
  Item* wrong = Arena::Create<Item>(arena.get());
  FillShort(wrong);
  AllocationCounts wrong_cost = Since(before);

  before = AllocationCounter::ThisThread();
  Item* right = Arena::CreateMessage<Item>(arena.get());
  FillShort(right);
  AllocationCounts right_cost = Since(before);

  EXPECT_EQ(wrong->GetArena(), nullptr);
  EXPECT_EQ(wrong->price().GetArena(), nullptr);
  EXPECT_EQ(right->GetArena(), arena.get());
  EXPECT_TRUE(testing::MessagesNotOnArena(*right, arena.get()).empty());
  // Heap: item_id's string object, price, currency's string object, image, the tags
  // array and the tag's string object. Arena: nothing.
  EXPECT_EQ(wrong_cost.allocs, 6u);
  EXPECT_EQ(right_cost.allocs, 0u);
  std::printf("Create<Item>: %llu mallocs, CreateMessage<Item>: %llu\n",
              static_cast<unsigned long long>(wrong_cost.allocs),
              static_cast<unsigned long long>(right_cost.allocs));
}

// The std::string object is on the arena, its characters are not once they exceed
// the 15-byte small-string buffer: one malloc per long string, none for short ones.
TEST(PitfallsTest, StringsOver15BytesStayOnTheHeapOnAnArena) {
  RoomyArena arena;
  Item* item = Arena::CreateMessage<Item>(arena.get());

  AllocationCounts before = AllocationCounter::ThisThread();
  item->mutable_item_id()->assign(k15Bytes);
  item->add_tags()->assign(k15Bytes);
  EXPECT_EQ(Since(before).allocs, 0u);

  before = AllocationCounter::ThisThread();
  item->mutable_title()->assign(k16Bytes);
  item->add_tags()->assign(k16Bytes);
  item->mutable_image()->mutable_url()->assign(kLongTitle);
  AllocationCounts used = Since(before);
  EXPECT_EQ(used.allocs, 3u);  // one per long string
  // libstdc++ grows a string out of its 15-byte buffer to at least twice that: the
  // 16-byte strings get 31 bytes (30 + NUL), the 33-byte one 34.
  EXPECT_EQ(used.bytes, 31u + 31 + sizeof(kLongTitle));
}

// set_x(const char*) goes through a temporary std::string (ConstStringParam is
// `const std::string&` in open-source protobuf 3.21): for text over 15 bytes that is a
// second malloc and a free. mutable_x()->assign(p, n) copies once.
TEST(PitfallsTest, SetFromCharPointerBuildsATemporaryString) {
  RoomyArena arena;
  Item* a = Arena::CreateMessage<Item>(arena.get());
  Item* b = Arena::CreateMessage<Item>(arena.get());
  const char* text = kLongTitle;

  AllocationCounts before = AllocationCounter::ThisThread();
  a->set_title(text);
  AllocationCounts via_set = Since(before);

  before = AllocationCounter::ThisThread();
  b->mutable_title()->assign(text, sizeof(kLongTitle) - 1);
  AllocationCounts via_assign = Since(before);

  EXPECT_EQ(a->title(), b->title());
  EXPECT_EQ(via_set.allocs, 2u);   // the temporary, then the field's own copy
  EXPECT_EQ(via_set.frees, 1u);    // the temporary
  EXPECT_EQ(via_assign.allocs, 1u);
  EXPECT_EQ(via_assign.frees, 0u);
  std::printf("set_title(const char*): %llu mallocs, mutable_title()->assign: %llu\n",
              static_cast<unsigned long long>(via_set.allocs),
              static_cast<unsigned long long>(via_assign.allocs));
}

// Allocation on an Arena is thread-safe: threads may CreateMessage on one arena at
// once. (Reset() and destruction are NOT: no test races them; see docs/patterns.md.)
TEST(PitfallsTest, ThreadsMayCreateMessagesOnOneArenaAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  Arena arena;
  std::vector<std::vector<Item*>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      made[t].reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) {
        Item* item = Arena::CreateMessage<Item>(&arena);
        item->mutable_price()->set_amount_micros(t * kPerThread + i);
        item->add_category_ids(t);
        made[t].push_back(item);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<const Item*> all;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(made[t].size(), static_cast<size_t>(kPerThread));
    for (int i = 0; i < kPerThread; ++i) {
      const Item* item = made[t][i];
      EXPECT_EQ(item->GetArena(), &arena);
      EXPECT_EQ(item->price().GetArena(), &arena);
      EXPECT_EQ(item->price().amount_micros(), t * kPerThread + i);
      ASSERT_EQ(item->category_ids_size(), 1);
      EXPECT_EQ(item->category_ids(0), static_cast<uint32_t>(t));
      all.push_back(item);
    }
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());  // no object handed out twice
}

}  // namespace
}  // namespace reco::patterns
