// SPDX-License-Identifier: Apache-2.0
// Proves the rules in append_best.h: what crosses an arena boundary is copied,
// what stays on one arena is not. Counts are exact: the target arena has an initial
// block big enough for every message in a test, so the only mallocs left are string
// payloads longer than 15 bytes (protobuf 3.21 keeps those on the heap) and heap objects.
#include "append_best.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "feed.pb.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"
#include "testing/test_arena.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedMetadata;
using feed::v1::FeedResponse;
using feed::v1::Post;
using google::protobuf::Arena;
using testing::MallocCounter;
using testing::MallocCounts;

constexpr char kLongTitle[] = "a title longer than fifteen bytes";  // 33 bytes: one malloc
constexpr char kOtherLongTitle[] = "another title, also over fifteen";

using testing::RoomyArena;

// One long string (the title); every other string fits the 15-byte small-string buffer.
void FillPost(Post* post, const char* title) {
  post->set_post_id("p-1");
  post->mutable_title()->assign(title);
  post->add_tags("new");
  post->mutable_author()->set_display_name("Ann");
  post->mutable_author()->set_verified(true);
}

// AppendBest for posts, ranked by scores().relevance.
void AppendMostRelevant(int candidate_count, int keep, const std::function<void(int, Post*)>& fill,
                        FeedResponse* response) {
  AppendBest<Post>(
      candidate_count, keep, fill, [](const Post& post) { return post.scores().relevance(); },
      response->mutable_posts());
}

MallocCounts Since(const MallocCounts& before) { return MallocCounter::ThisThread() - before; }

TEST(TemporaryArenaTest, AppendBestCopiesTheWinnersAndLeavesNothingBehind) {
  RoomyArena response_arena;
  auto* response = Arena::CreateMessage<FeedResponse>(response_arena.get());
  constexpr int kCandidates = 100;
  constexpr int kKeep = 5;
  MallocCounts before = MallocCounter::ThisThread();
  AppendMostRelevant(
      kCandidates, kKeep,
      [](int i, Post* post) {
        FillPost(post, kLongTitle);
        post->mutable_scores()->set_relevance(static_cast<float>((i * 37) % kCandidates));
      },
      response);
  MallocCounts used = Since(before);

  ASSERT_EQ(response->posts_size(), kKeep);
  for (int i = 0; i < kKeep; ++i) {
    EXPECT_EQ(response->posts(i).scores().relevance(), static_cast<float>(kCandidates - 1 - i));
    EXPECT_EQ(response->posts(i).title(), kLongTitle);
  }
  EXPECT_TRUE(testing::MessagesNotOnArena(*response, response_arena.get()).empty());
  // The scratch arena freed every block and every candidate's title; what is still
  // allocated is exactly the kKeep copied long titles.
  EXPECT_EQ(used.allocs - used.frees, static_cast<uint64_t>(kKeep));
}

TEST(TemporaryArenaTest, AppendBestKeepsAtMostWhatItWasGiven) {
  FeedResponse response;
  auto fill = [](int i, Post* post) { post->mutable_scores()->set_relevance(static_cast<float>(i)); };
  AppendMostRelevant(3, 10, fill, &response);
  ASSERT_EQ(response.posts_size(), 3);
  EXPECT_EQ(response.posts(0).scores().relevance(), 2.0f);
  AppendMostRelevant(0, 10, fill, &response);
  AppendMostRelevant(5, 0, fill, &response);
  EXPECT_EQ(response.posts_size(), 3);
}

TEST(TemporaryArenaTest, CrossArenaMoveAssignmentDeepCopies) {
  RoomyArena a, b;
  Post* source = Arena::CreateMessage<Post>(a.get());
  FillPost(source, kLongTitle);
  const char* source_title = source->title().data();
  Post* target = Arena::CreateMessage<Post>(b.get());

  MallocCounts before = MallocCounter::ThisThread();
  *target = std::move(*source);
  MallocCounts used = Since(before);
  EXPECT_EQ(used.allocs, 1u);  // the long title, copied; the rest lands in b's block
  EXPECT_NE(target->title().data(), source_title);
  EXPECT_EQ(source->title(), kLongTitle);  // "moved-from" is untouched: it was a copy
  EXPECT_EQ(target->author().GetArena(), b.get());
}

TEST(TemporaryArenaTest, SameArenaMoveAssignmentMovesPointers) {
  RoomyArena a;
  Post* source = Arena::CreateMessage<Post>(a.get());
  FillPost(source, kLongTitle);
  const char* source_title = source->title().data();
  const feed::v1::Author* source_author = &source->author();
  Post* target = Arena::CreateMessage<Post>(a.get());

  MallocCounts before = MallocCounter::ThisThread();
  *target = std::move(*source);
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(target->title().data(), source_title);
  EXPECT_EQ(&target->author(), source_author);
}

TEST(TemporaryArenaTest, CrossArenaSwapDeepCopiesBothSides) {
  RoomyArena a, b;
  Post* x = Arena::CreateMessage<Post>(a.get());
  Post* y = Arena::CreateMessage<Post>(b.get());
  FillPost(x, kLongTitle);
  FillPost(y, kOtherLongTitle);
  const char* x_title = x->title().data();
  const char* y_title = y->title().data();

  {
    // The first cross-arena Swap in a process builds protobuf's reflection data for
    // Post (hundreds of one-time allocations): done once outside the count.
    RoomyArena c, d;
    Arena::CreateMessage<Post>(c.get())->Swap(Arena::CreateMessage<Post>(d.get()));
  }
  MallocCounts before = MallocCounter::ThisThread();
  x->Swap(y);
  MallocCounts used = Since(before);
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
  Post* x = Arena::CreateMessage<Post>(a.get());
  Post* y = Arena::CreateMessage<Post>(a.get());
  FillPost(x, kLongTitle);
  FillPost(y, kOtherLongTitle);
  const char* x_title = x->title().data();

  MallocCounts before = MallocCounter::ThisThread();
  x->Swap(y);
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(y->title().data(), x_title);
}

TEST(TemporaryArenaTest, CrossArenaAddAllocatedDeepCopies) {
  RoomyArena a, b;
  Post* post = Arena::CreateMessage<Post>(a.get());
  FillPost(post, kLongTitle);
  auto* response = Arena::CreateMessage<FeedResponse>(b.get());

  MallocCounts before = MallocCounter::ThisThread();
  response->mutable_posts()->AddAllocated(post);
  MallocCounts used = Since(before);
  EXPECT_EQ(used.allocs, 1u);  // the long title
  EXPECT_NE(&response->posts(0), post);
  EXPECT_EQ(response->posts(0).GetArena(), b.get());
  EXPECT_EQ(post->title(), kLongTitle);  // the original is still alive, on a
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
  auto* metadata = Arena::CreateMessage<FeedMetadata>(a.get());
  auto* arena_response = Arena::CreateMessage<FeedResponse>(b.get());
  EXPECT_EQ(FatalCheckMessage([&] { arena_response->set_allocated_metadata(metadata); }),
            "CHECK failed: (submessage_arena) == (nullptr): ");
  EXPECT_FALSE(arena_response->has_metadata());
  FeedResponse heap_response;
  EXPECT_EQ(FatalCheckMessage([&] { heap_response.set_allocated_metadata(metadata); }),
            "CHECK failed: (submessage_arena) == (nullptr): ");
}

// What to write instead: copy into the target's own sub-message.
TEST(TemporaryArenaTest, CrossArenaCopyFromIsTheWayToMoveASubMessage) {
  RoomyArena a, b;
  auto* metadata = Arena::CreateMessage<FeedMetadata>(a.get());
  metadata->mutable_model_version()->assign(kLongTitle);
  auto* response = Arena::CreateMessage<FeedResponse>(b.get());

  MallocCounts before = MallocCounter::ThisThread();
  response->mutable_metadata()->CopyFrom(*metadata);
  EXPECT_EQ(Since(before).allocs, 1u);  // the long model_version
  EXPECT_EQ(response->metadata().GetArena(), b.get());
  EXPECT_EQ(response->metadata().model_version(), kLongTitle);
}

// Arena -> heap copies too, and on the heap every object is its own malloc: the
// post, its title's std::string object and payload, its id's string object, the
// tags array and the tag's string object, the author and its name's string object.
TEST(TemporaryArenaTest, ArenaMessageGivenToAHeapMessageIsCopiedToTheHeap) {
  RoomyArena a;
  Post* post = Arena::CreateMessage<Post>(a.get());
  FillPost(post, kLongTitle);
  FeedResponse heap_response;
  heap_response.mutable_posts()->Reserve(1);

  MallocCounts before = MallocCounter::ThisThread();
  heap_response.mutable_posts()->AddAllocated(post);
  EXPECT_EQ(Since(before).allocs, 8u);
  EXPECT_NE(&heap_response.posts(0), post);
  EXPECT_EQ(heap_response.posts(0).GetArena(), nullptr);
}

TEST(TemporaryArenaTest, HeapMessageGivenToAnArenaIsOwnedNotCopied) {
  RoomyArena b;
  auto* response = Arena::CreateMessage<FeedResponse>(b.get());
  auto* heap_post = new Post;
  FillPost(heap_post, kLongTitle);
  auto* heap_metadata = new FeedMetadata;

  MallocCounts before = MallocCounter::ThisThread();
  response->mutable_posts()->AddAllocated(heap_post);
  response->set_allocated_metadata(heap_metadata);
  EXPECT_EQ(Since(before).allocs, 0u);
  // Same objects, still heap messages; the arena deletes them when it goes (no leak
  // under ASan/LSan, which is what proves Arena::Own).
  EXPECT_EQ(&response->posts(0), heap_post);
  EXPECT_EQ(response->posts(0).GetArena(), nullptr);
  EXPECT_EQ(&response->metadata(), heap_metadata);
  EXPECT_EQ(response->metadata().GetArena(), nullptr);
}

TEST(TemporaryArenaTest, ReleaseOnAnArenaMessageReturnsAHeapCopy) {
  RoomyArena a;
  auto* response = Arena::CreateMessage<FeedResponse>(a.get());
  response->mutable_metadata()->mutable_model_version()->assign(kLongTitle);
  response->mutable_metadata()->set_experiment_bucket("b7");
  const FeedMetadata* original = &response->metadata();

  MallocCounts before = MallocCounter::ThisThread();
  FeedMetadata* released = response->release_metadata();
  MallocCounts used = Since(before);
  // The heap copy: the message, two std::string objects (a heap message owns each
  // string object), and the long payload.
  EXPECT_EQ(used.allocs, 4u);
  EXPECT_NE(released, original);
  EXPECT_EQ(released->GetArena(), nullptr);
  EXPECT_EQ(released->model_version(), kLongTitle);
  EXPECT_FALSE(response->has_metadata());

  before = MallocCounter::ThisThread();
  delete released;  // ours now
  EXPECT_EQ(Since(before).frees, 4u);
}

TEST(TemporaryArenaTest, UnsafeArenaReleaseKeepsTheArenaObject) {
  RoomyArena a;
  auto* response = Arena::CreateMessage<FeedResponse>(a.get());
  response->mutable_metadata()->mutable_model_version()->assign(kLongTitle);
  const FeedMetadata* original = &response->metadata();

  MallocCounts before = MallocCounter::ThisThread();
  FeedMetadata* released = response->unsafe_arena_release_metadata();
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(released, original);
  EXPECT_EQ(released->GetArena(), a.get());  // still the arena's: never delete it
}

TEST(TemporaryArenaTest, BuildingOnTheResponseArenaCopiesNothing) {
  RoomyArena b;
  auto* response = Arena::CreateMessage<FeedResponse>(b.get());

  MallocCounts before = MallocCounter::ThisThread();
  Post* post = Arena::CreateMessage<Post>(response->GetArena());
  FillPost(post, kLongTitle);
  response->mutable_posts()->AddAllocated(post);  // same arena: pointer kept
  FillPost(response->add_posts(), kLongTitle);    // or build in place
  auto* metadata = Arena::CreateMessage<FeedMetadata>(response->GetArena());
  response->unsafe_arena_set_allocated_metadata(metadata);  // same arena: safe
  MallocCounts used = Since(before);

  EXPECT_EQ(used.allocs, 2u);  // the two long titles themselves, nothing else
  EXPECT_EQ(&response->posts(0), post);
  EXPECT_EQ(&response->metadata(), metadata);
  EXPECT_TRUE(testing::MessagesNotOnArena(*response, b.get()).empty());
}

}  // namespace
}  // namespace reco::patterns
