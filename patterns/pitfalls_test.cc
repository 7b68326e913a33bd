// SPDX-License-Identifier: Apache-2.0
// The arena pitfalls docs/patterns.md lists, each proven here with exact counts
// (protobuf 3.21). The cross-arena and Reset() pitfalls are proven next to their
// patterns: append_best_test.cc and arena_batch_test.cc.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "feed.pb.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"
#include "testing/test_arena.h"

namespace reco::patterns {
namespace {

using feed::v1::Post;
using google::protobuf::Arena;
using testing::MallocCounter;
using testing::MallocCounts;

constexpr char k15Bytes[] = "fifteen-bytes!!";                      // fits libstdc++'s small-string buffer
constexpr char k16Bytes[] = "sixteen-bytes!!!";                     // one byte too many
constexpr char kLongTitle[] = "a title longer than fifteen bytes";  // 33 bytes

using testing::RoomyArena;

MallocCounts Since(const MallocCounts& before) { return MallocCounter::ThisThread() - before; }

void FillShort(Post* post) {
  post->set_post_id("p-1");
  post->mutable_author()->set_display_name("Ann");
  post->mutable_media()->set_width(640);
  post->add_tags("new");
}

// Arena::Create<T> treats a message as a black box: its memory comes from the arena
// but the message is built WITHOUT the arena pointer, so GetArena() is null and every
// sub-object goes to the heap. Arena::CreateMessage<T> is the call that works in 3.21.
TEST(PitfallsTest, CreateBuildsTheMessageWithoutTheArena) {
  RoomyArena arena;
  MallocCounts before = MallocCounter::ThisThread();
  Post* wrong = Arena::Create<Post>(arena.get());
  FillShort(wrong);
  MallocCounts wrong_cost = Since(before);

  before = MallocCounter::ThisThread();
  Post* right = Arena::CreateMessage<Post>(arena.get());
  FillShort(right);
  MallocCounts right_cost = Since(before);

  EXPECT_EQ(wrong->GetArena(), nullptr);
  EXPECT_EQ(wrong->author().GetArena(), nullptr);
  EXPECT_EQ(right->GetArena(), arena.get());
  EXPECT_TRUE(testing::MessagesNotOnArena(*right, arena.get()).empty());
  // Heap: post_id's string object, author, its name's string object, media, the tags
  // array and the tag's string object. Arena: nothing.
  EXPECT_EQ(wrong_cost.allocs, 6u);
  EXPECT_EQ(right_cost.allocs, 0u);
  std::printf("Create<Post>: %llu mallocs, CreateMessage<Post>: %llu\n",
              static_cast<unsigned long long>(wrong_cost.allocs), static_cast<unsigned long long>(right_cost.allocs));
}

// The std::string object is on the arena, its characters are not once they exceed
// the 15-byte small-string buffer: one malloc per long string, none for short ones.
TEST(PitfallsTest, StringsOver15BytesStayOnTheHeapOnAnArena) {
  RoomyArena arena;
  Post* post = Arena::CreateMessage<Post>(arena.get());

  MallocCounts before = MallocCounter::ThisThread();
  post->mutable_post_id()->assign(k15Bytes);
  post->add_tags()->assign(k15Bytes);
  EXPECT_EQ(Since(before).allocs, 0u);

  before = MallocCounter::ThisThread();
  post->mutable_title()->assign(k16Bytes);
  post->add_tags()->assign(k16Bytes);
  post->mutable_media()->mutable_url()->assign(kLongTitle);
  MallocCounts used = Since(before);
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
  Post* a = Arena::CreateMessage<Post>(arena.get());
  Post* b = Arena::CreateMessage<Post>(arena.get());
  const char* text = kLongTitle;

  MallocCounts before = MallocCounter::ThisThread();
  a->set_title(text);
  MallocCounts via_set = Since(before);

  before = MallocCounter::ThisThread();
  b->mutable_title()->assign(text, sizeof(kLongTitle) - 1);
  MallocCounts via_assign = Since(before);

  EXPECT_EQ(a->title(), b->title());
  EXPECT_EQ(via_set.allocs, 2u);  // the temporary, then the field's own copy
  EXPECT_EQ(via_set.frees, 1u);   // the temporary
  EXPECT_EQ(via_assign.allocs, 1u);
  EXPECT_EQ(via_assign.frees, 0u);
  std::printf("set_title(const char*): %llu mallocs, mutable_title()->assign: %llu\n",
              static_cast<unsigned long long>(via_set.allocs), static_cast<unsigned long long>(via_assign.allocs));
}

// Allocation on an Arena is thread-safe: threads may CreateMessage on one arena at
// once. (Reset() and destruction are NOT: no test races them; see docs/patterns.md.)
TEST(PitfallsTest, ThreadsMayCreateMessagesOnOneArenaAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  Arena arena;
  std::vector<std::vector<Post*>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      made[t].reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) {
        Post* post = Arena::CreateMessage<Post>(&arena);
        post->mutable_engagement()->set_likes(t * kPerThread + i);
        post->add_topic_ids(t);
        made[t].push_back(post);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<const Post*> all;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(made[t].size(), static_cast<size_t>(kPerThread));
    for (int i = 0; i < kPerThread; ++i) {
      const Post* post = made[t][i];
      EXPECT_EQ(post->GetArena(), &arena);
      EXPECT_EQ(post->engagement().GetArena(), &arena);
      EXPECT_EQ(post->engagement().likes(), t * kPerThread + i);
      ASSERT_EQ(post->topic_ids_size(), 1);
      EXPECT_EQ(post->topic_ids(0), static_cast<uint32_t>(t));
      all.push_back(post);
    }
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());  // no object handed out twice
}

}  // namespace
}  // namespace reco::patterns
