// SPDX-License-Identifier: Apache-2.0
// Proves the rules in append_best.h: what crosses an arena boundary is copied,
// what stays on one arena is not. Counts are exact: the target arena has an initial
// block big enough for every message in a test, so the only mallocs left are string
// payloads longer than 15 bytes (protobuf 3.21 keeps those on the heap) and heap objects.
#include "patterns/append_best.h"

#include <string>
#include <utility>
#include <vector>

#include "core/allocation_counter.h"
#include "core/test_util.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"

namespace reco::patterns {
namespace {

using google::protobuf::Arena;
using v1::Item;
using v1::RecommendResponse;
using v1::ResponseMetadata;

constexpr char kLongTitle[] = "a title longer than fifteen bytes";  // 33 bytes: one malloc
constexpr char kOtherLongTitle[] = "another title, also over fifteen";

using testing::RoomyArena;

// One long string (the title); every other string fits the 15-byte small-string buffer.
void FillItem(Item* item, const char* title) {
  item->set_item_id("i-1");
  item->mutable_title()->assign(title);
  item->add_tags("new");
  item->mutable_price()->set_currency_code("EUR");
  item->mutable_price()->set_amount_micros(1990000);
}

AllocationCounts Since(const AllocationCounts& before) { return AllocationCounter::ThisThread() - before; }

TEST(TemporaryArenaTest, AppendBestCopiesTheWinnersAndLeavesNothingBehind) {
  RoomyArena response_arena;
  auto* response = Arena::CreateMessage<RecommendResponse>(response_arena.get());
  constexpr int kCandidates = 100;
  constexpr int kKeep = 5;
  AllocationCounts before = AllocationCounter::ThisThread();
  AppendMostRelevant(kCandidates, kKeep,
                     [](int i, Item* item) {
                       FillItem(item, kLongTitle);
                       item->mutable_scores()->set_relevance(static_cast<float>((i * 37) % kCandidates));
                     },
                     response);
  AllocationCounts used = Since(before);

  ASSERT_EQ(response->items_size(), kKeep);
  for (int i = 0; i < kKeep; ++i) {
    EXPECT_EQ(response->items(i).scores().relevance(), static_cast<float>(kCandidates - 1 - i));
    EXPECT_EQ(response->items(i).title(), kLongTitle);
  }
  EXPECT_TRUE(testing::MessagesNotOnArena(*response, response_arena.get()).empty());
  // The scratch arena freed every block and every candidate's title; what is still
  // allocated is exactly the kKeep copied long titles.
  EXPECT_EQ(used.allocs - used.frees, static_cast<uint64_t>(kKeep));
}

TEST(TemporaryArenaTest, AppendBestKeepsAtMostWhatItWasGiven) {
  RecommendResponse response;
  auto fill = [](int i, Item* item) { item->mutable_scores()->set_relevance(static_cast<float>(i)); };
  AppendMostRelevant(3, 10, fill, &response);
  ASSERT_EQ(response.items_size(), 3);
  EXPECT_EQ(response.items(0).scores().relevance(), 2.0f);
  AppendMostRelevant(0, 10, fill, &response);
  AppendMostRelevant(5, 0, fill, &response);
  EXPECT_EQ(response.items_size(), 3);
}

TEST(TemporaryArenaTest, CrossArenaMoveAssignmentDeepCopies) {
  RoomyArena a, b;
  Item* source = Arena::CreateMessage<Item>(a.get());
  FillItem(source, kLongTitle);
  const char* source_title = source->title().data();
  Item* target = Arena::CreateMessage<Item>(b.get());

  AllocationCounts before = AllocationCounter::ThisThread();
  *target = std::move(*source);
  AllocationCounts used = Since(before);
  EXPECT_EQ(used.allocs, 1u);  // the long title, copied; the rest lands in b's block
  EXPECT_NE(target->title().data(), source_title);
  EXPECT_EQ(source->title(), kLongTitle);  // "moved-from" is untouched: it was a copy
  EXPECT_EQ(target->price().GetArena(), b.get());
}

TEST(TemporaryArenaTest, SameArenaMoveAssignmentMovesPointers) {
  RoomyArena a;
  Item* source = Arena::CreateMessage<Item>(a.get());
  FillItem(source, kLongTitle);
  const char* source_title = source->title().data();
  const v1::Price* source_price = &source->price();
  Item* target = Arena::CreateMessage<Item>(a.get());

  AllocationCounts before = AllocationCounter::ThisThread();
  *target = std::move(*source);
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(target->title().data(), source_title);
  EXPECT_EQ(&target->price(), source_price);
}

TEST(TemporaryArenaTest, CrossArenaSwapDeepCopiesBothSides) {
  RoomyArena a, b;
  Item* x = Arena::CreateMessage<Item>(a.get());
  Item* y = Arena::CreateMessage<Item>(b.get());
  FillItem(x, kLongTitle);
  FillItem(y, kOtherLongTitle);
  const char* x_title = x->title().data();
  const char* y_title = y->title().data();

  {
    // The first cross-arena Swap in a process builds protobuf's reflection data for
    // Item (hundreds of one-time allocations): done once outside the count.
    RoomyArena c, d;
    Arena::CreateMessage<Item>(c.get())->Swap(Arena::CreateMessage<Item>(d.get()));
  }
  AllocationCounts before = AllocationCounter::ThisThread();
  x->Swap(y);
  AllocationCounts used = Since(before);
  EXPECT_EQ(x->title(), kOtherLongTitle);
  EXPECT_EQ(y->title(), kLongTitle);
  // Neither buffer changed hands: both titles were copied.
  EXPECT_NE(x->title().data(), y_title);
  EXPECT_NE(y->title().data(), x_title);
  // protobuf copies x into a temporary on y's arena (1 malloc: x's long title), clears
  // x (its title keeps its capacity), copies y into x (y's title fits: no malloc) and
  // swaps y with the temporary. y's old contents stay on b until b goes (0 frees).
  EXPECT_EQ(used.allocs, 1u);
  EXPECT_EQ(used.frees, 0u);
}

TEST(TemporaryArenaTest, SameArenaSwapExchangesPointers) {
  RoomyArena a;
  Item* x = Arena::CreateMessage<Item>(a.get());
  Item* y = Arena::CreateMessage<Item>(a.get());
  FillItem(x, kLongTitle);
  FillItem(y, kOtherLongTitle);
  const char* x_title = x->title().data();

  AllocationCounts before = AllocationCounter::ThisThread();
  x->Swap(y);
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(y->title().data(), x_title);
}

TEST(TemporaryArenaTest, CrossArenaAddAllocatedDeepCopies) {
  RoomyArena a, b;
  Item* item = Arena::CreateMessage<Item>(a.get());
  FillItem(item, kLongTitle);
  auto* response = Arena::CreateMessage<RecommendResponse>(b.get());

  AllocationCounts before = AllocationCounter::ThisThread();
  response->mutable_items()->AddAllocated(item);
  AllocationCounts used = Since(before);
  EXPECT_EQ(used.allocs, 1u);  // the long title
  EXPECT_NE(&response->items(0), item);
  EXPECT_EQ(response->items(0).GetArena(), b.get());
  EXPECT_EQ(item->title(), kLongTitle);  // the original is still alive, on a
}

// The message of the google::protobuf::FatalException `f` throws, or "" if none.
// (Debian's libprotobuf is built with exceptions: a failed CHECK throws it; uncaught,
// that is std::terminate.)
template <typename F>
std::string FatalCheckMessage(F f) {
  try {
    f();
  } catch (const google::protobuf::FatalException& e) {
    return e.message();
  }
  return "";
}

// set_allocated_x() is NOT a copy across arenas: protobuf 3.21's GetOwnedMessageInternal
// checks that the sub-message is on the heap (or on the same arena), and Debian's
// libprotobuf is built with that check on: a message from another arena -- or an arena
// message given to a heap message -- is a fatal CHECK failure.
TEST(TemporaryArenaTest, SetAllocatedFromAnotherArenaIsAFatalCheck) {
  RoomyArena a, b;
  auto* metadata = Arena::CreateMessage<ResponseMetadata>(a.get());
  auto* arena_response = Arena::CreateMessage<RecommendResponse>(b.get());
  EXPECT_EQ(FatalCheckMessage([&] { arena_response->set_allocated_metadata(metadata); }),
            "CHECK failed: (submessage_arena) == (nullptr): ");
  EXPECT_FALSE(arena_response->has_metadata());
  RecommendResponse heap_response;
  EXPECT_EQ(FatalCheckMessage([&] { heap_response.set_allocated_metadata(metadata); }),
            "CHECK failed: (submessage_arena) == (nullptr): ");
}

// What to write instead: copy into the target's own sub-message.
TEST(TemporaryArenaTest, CrossArenaCopyFromIsTheWayToMoveASubMessage) {
  RoomyArena a, b;
  auto* metadata = Arena::CreateMessage<ResponseMetadata>(a.get());
  metadata->mutable_model_version()->assign(kLongTitle);
  auto* response = Arena::CreateMessage<RecommendResponse>(b.get());

  AllocationCounts before = AllocationCounter::ThisThread();
  response->mutable_metadata()->CopyFrom(*metadata);
  EXPECT_EQ(Since(before).allocs, 1u);  // the long model_version
  EXPECT_EQ(response->metadata().GetArena(), b.get());
  EXPECT_EQ(response->metadata().model_version(), kLongTitle);
}

// Arena -> heap copies too, and on the heap every object is its own malloc: the
// item, its title's std::string object and payload, its id's string object, the
// tags array and the tag's string object, the price and its currency's string object.
TEST(TemporaryArenaTest, ArenaMessageGivenToAHeapMessageIsCopiedToTheHeap) {
  RoomyArena a;
  Item* item = Arena::CreateMessage<Item>(a.get());
  FillItem(item, kLongTitle);
  RecommendResponse heap_response;
  heap_response.mutable_items()->Reserve(1);

  AllocationCounts before = AllocationCounter::ThisThread();
  heap_response.mutable_items()->AddAllocated(item);
  EXPECT_EQ(Since(before).allocs, 8u);
  EXPECT_NE(&heap_response.items(0), item);
  EXPECT_EQ(heap_response.items(0).GetArena(), nullptr);
}

TEST(TemporaryArenaTest, HeapMessageGivenToAnArenaIsOwnedNotCopied) {
  RoomyArena b;
  auto* response = Arena::CreateMessage<RecommendResponse>(b.get());
  auto* heap_item = new Item;
  FillItem(heap_item, kLongTitle);
  auto* heap_metadata = new ResponseMetadata;

  AllocationCounts before = AllocationCounter::ThisThread();
  response->mutable_items()->AddAllocated(heap_item);
  response->set_allocated_metadata(heap_metadata);
  EXPECT_EQ(Since(before).allocs, 0u);
  // Same objects, still heap messages; the arena deletes them when it goes (no leak
  // under ASan/LSan, which is what proves Arena::Own).
  EXPECT_EQ(&response->items(0), heap_item);
  EXPECT_EQ(response->items(0).GetArena(), nullptr);
  EXPECT_EQ(&response->metadata(), heap_metadata);
  EXPECT_EQ(response->metadata().GetArena(), nullptr);
}

TEST(TemporaryArenaTest, ReleaseOnAnArenaMessageReturnsAHeapCopy) {
  RoomyArena a;
  auto* response = Arena::CreateMessage<RecommendResponse>(a.get());
  response->mutable_metadata()->mutable_model_version()->assign(kLongTitle);
  response->mutable_metadata()->set_experiment_bucket("b7");
  const ResponseMetadata* original = &response->metadata();

  AllocationCounts before = AllocationCounter::ThisThread();
  ResponseMetadata* released = response->release_metadata();
  AllocationCounts used = Since(before);
  // The heap copy: the message, two std::string objects (a heap message owns each
  // string object), and the long payload.
  EXPECT_EQ(used.allocs, 4u);
  EXPECT_NE(released, original);
  EXPECT_EQ(released->GetArena(), nullptr);
  EXPECT_EQ(released->model_version(), kLongTitle);
  EXPECT_FALSE(response->has_metadata());

  before = AllocationCounter::ThisThread();
  delete released;  // ours now
  EXPECT_EQ(Since(before).frees, 4u);
}

TEST(TemporaryArenaTest, UnsafeArenaReleaseKeepsTheArenaObject) {
  RoomyArena a;
  auto* response = Arena::CreateMessage<RecommendResponse>(a.get());
  response->mutable_metadata()->mutable_model_version()->assign(kLongTitle);
  const ResponseMetadata* original = &response->metadata();

  AllocationCounts before = AllocationCounter::ThisThread();
  ResponseMetadata* released = response->unsafe_arena_release_metadata();
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(released, original);
  EXPECT_EQ(released->GetArena(), a.get());  // still the arena's: never delete it
}

TEST(TemporaryArenaTest, BuildingOnTheResponseArenaCopiesNothing) {
  RoomyArena b;
  auto* response = Arena::CreateMessage<RecommendResponse>(b.get());

  AllocationCounts before = AllocationCounter::ThisThread();
  Item* item = Arena::CreateMessage<Item>(response->GetArena());
  FillItem(item, kLongTitle);
  response->mutable_items()->AddAllocated(item);  // same arena: pointer kept
  FillItem(response->add_items(), kLongTitle);    // or build in place
  auto* metadata = Arena::CreateMessage<ResponseMetadata>(response->GetArena());
  response->unsafe_arena_set_allocated_metadata(metadata);  // same arena: safe
  AllocationCounts used = Since(before);

  EXPECT_EQ(used.allocs, 2u);  // the two long titles themselves, nothing else
  EXPECT_EQ(&response->items(0), item);
  EXPECT_EQ(&response->metadata(), metadata);
  EXPECT_TRUE(testing::MessagesNotOnArena(*response, b.get()).empty());
}

}  // namespace
}  // namespace reco::patterns
