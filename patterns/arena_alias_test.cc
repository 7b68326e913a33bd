// SPDX-License-Identifier: Apache-2.0
// AliasSubMessage: a reply whose posts alias a store's sub-messages is the copying
// reply's bytes, holds the stored objects themselves and allocates nothing for them;
// the store is byte-for-byte unchanged after many replies and Reset()s; a message
// not on an arena is refused; four threads serializing replies that share the same
// sub-messages all get the right bytes (this binary is labelled tsan).
#include "arena_alias.h"

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "block_arena.h"
#include "feed.pb.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/malloc_counter.h"
#include "testing/message_tree.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedResponse;
using feed::v1::Post;
using google::protobuf::Arena;
using google::protobuf::RepeatedPtrField;
using testing::MallocCounter;
using testing::MallocCounts;
using testing::StringsLongerThan;

// The store replies take their posts from: built once, on the heap, never written
// after (a service's catalogue).
RepeatedPtrField<Post> Store(int posts, bool long_text) {
  RepeatedPtrField<Post> store;
  for (int i = 0; i < posts; ++i) testing::FillPost(i, long_text, store.Add());
  return store;
}

// One sub-message of `source` into `post`: aliased when asked and the helper
// accepts, else copied. Returns 1 when aliased.
template <typename SubMessage>
int Take(Post* post, void (Post::*alias_setter)(SubMessage*), SubMessage* (Post::*mutable_field)(), bool has,
         const SubMessage& stored, bool alias) {
  if (!has) return 0;
  if (alias && AliasSubMessage(post, alias_setter, stored)) return 1;
  (post->*mutable_field)()->CopyFrom(stored);
  return 0;
}

// `source` into the empty `post` as a handler does: its own fields copied, its four
// sub-messages aliased (alias) or copied. Returns how many were aliased.
int TakePost(const Post& source, bool alias, Post* post) {
  post->set_post_id(source.post_id());
  post->set_title(source.title());
  post->set_body(source.body());
  post->mutable_tags()->CopyFrom(source.tags());
  post->mutable_topic_ids()->CopyFrom(source.topic_ids());
  return Take(post, &Post::unsafe_arena_set_allocated_author, &Post::mutable_author, source.has_author(),
              source.author(), alias) +
         Take(post, &Post::unsafe_arena_set_allocated_media, &Post::mutable_media, source.has_media(), source.media(),
              alias) +
         Take(post, &Post::unsafe_arena_set_allocated_engagement, &Post::mutable_engagement, source.has_engagement(),
              source.engagement(), alias) +
         Take(post, &Post::unsafe_arena_set_allocated_scores, &Post::mutable_scores, source.has_scores(),
              source.scores(), alias);
}

// A reply of every stored post. Returns how many sub-messages were aliased.
int FillReply(const RepeatedPtrField<Post>& store, bool alias, FeedResponse* reply) {
  reply->set_request_id("req-1");
  reply->mutable_posts()->Reserve(store.size());
  int aliased = 0;
  for (const Post& source : store) aliased += TakePost(source, alias, reply->add_posts());
  return aliased;
}

std::vector<std::string> EachSerialized(const RepeatedPtrField<Post>& store) {
  std::vector<std::string> bytes;
  for (const Post& p : store) bytes.push_back(p.SerializeAsString());
  return bytes;
}

// The sub-messages of `post` that ARE the stored post's objects.
int SharedWith(const Post& post, const Post& stored) {
  return (&post.author() == &stored.author()) + (&post.media() == &stored.media()) +
         (&post.engagement() == &stored.engagement()) + (&post.scores() == &stored.scores());
}

// Takes back from a HEAP post any sub-message that is the stored post's, so that a
// failing refusal test fails by its expectations, not by the post deleting the store's
// objects.
void DropShared(Post* post, const Post& stored) {
  if (&post->author() == &stored.author()) post->unsafe_arena_release_author();
  if (&post->media() == &stored.media()) post->unsafe_arena_release_media();
  if (&post->engagement() == &stored.engagement()) post->unsafe_arena_release_engagement();
  if (&post->scores() == &stored.scores()) post->unsafe_arena_release_scores();
}

TEST(ArenaAliasTest, AliasedReplyIsTheCopysBytes) {
  for (bool long_text : {false, true}) {
    SCOPED_TRACE(long_text ? "long text" : "short text");
    const RepeatedPtrField<Post> store = Store(200, long_text);
    Arena arena;
    auto* copied = Arena::CreateMessage<FeedResponse>(&arena);
    auto* aliased = Arena::CreateMessage<FeedResponse>(&arena);
    EXPECT_EQ(FillReply(store, /*alias=*/false, copied), 0);
    EXPECT_EQ(FillReply(store, /*alias=*/true, aliased), 4 * 200);
    // And the plain way: every post CopyFrom'd into a heap reply.
    FeedResponse whole;
    whole.set_request_id("req-1");
    for (const Post& p : store) whole.add_posts()->CopyFrom(p);
    const std::string want = whole.SerializeAsString();
    EXPECT_TRUE(copied->SerializeAsString() == want) << "the copied reply differs from CopyFrom's";
    EXPECT_TRUE(aliased->SerializeAsString() == want) << "the aliased reply differs from CopyFrom's";
    EXPECT_EQ(aliased->ByteSizeLong(), want.size());
  }
}

// What aliasing saves, exactly: on an arena whose block holds the reply, the copy
// allocates one buffer per string over 15 bytes; the aliased reply only those of the
// posts' own fields -- the sub-messages' strings are not copied at all.
TEST(ArenaAliasTest, AliasedSubMessagesAreTheStoredObjectsAndAllocateNothing) {
  constexpr int kPosts = 20;
  const RepeatedPtrField<Post> store = Store(kPosts, /*long_text=*/true);
  int own_long_strings = 0;
  for (const Post& p : store) {
    Post own = p;  // the post without its four sub-messages
    own.clear_author();
    own.clear_media();
    own.clear_engagement();
    own.clear_scores();
    own_long_strings += StringsLongerThan(own, 15);
  }
  BlockArena arena(1 << 20);  // holds both replies: no block is allocated below

  auto* copied = Arena::CreateMessage<FeedResponse>(arena.get());
  MallocCounts before = MallocCounter::ThisThread();
  FillReply(store, /*alias=*/false, copied);
  const MallocCounts copy = MallocCounter::ThisThread() - before;

  auto* aliased = Arena::CreateMessage<FeedResponse>(arena.get());
  before = MallocCounter::ThisThread();
  FillReply(store, /*alias=*/true, aliased);
  const MallocCounts alias = MallocCounter::ThisThread() - before;

  std::printf("%d long-text posts on an arena: copied %llu mallocs, sub-messages aliased %llu\n", kPosts,
              static_cast<unsigned long long>(copy.allocs), static_cast<unsigned long long>(alias.allocs));
  ASSERT_GT(own_long_strings, 0);
  EXPECT_EQ(copy.allocs, static_cast<uint64_t>(StringsLongerThan(*copied, 15)));
  EXPECT_EQ(alias.allocs, static_cast<uint64_t>(own_long_strings));
  EXPECT_GT(copy.allocs, alias.allocs);
  EXPECT_EQ(copy.frees + alias.frees, 0u);
  for (int i = 0; i < kPosts; ++i) {
    EXPECT_EQ(SharedWith(aliased->posts(i), store.Get(i)), 4) << "post " << i;
    EXPECT_EQ(SharedWith(copied->posts(i), store.Get(i)), 0) << "post " << i;
  }
  // The shared objects stay the store's: heap messages, not the arena's.
  EXPECT_EQ(aliased->posts(0).author().GetArena(), nullptr);
  EXPECT_EQ(copied->posts(0).author().GetArena(), arena.get());
}

TEST(ArenaAliasTest, StoreIsUnchangedAfterManyRepliesAndReset) {
  const RepeatedPtrField<Post> store = Store(200, /*long_text=*/true);
  const std::vector<std::string> before = EachSerialized(store);
  FeedResponse whole;
  whole.set_request_id("req-1");
  for (const Post& p : store) whole.add_posts()->CopyFrom(p);
  const std::string want = whole.SerializeAsString();
  {
    BlockArena arena(64 * 1024);  // smaller than a reply: Reset() also frees grown blocks
    std::string bytes;
    for (int reply = 0; reply < 100; ++reply) {
      auto* r = Arena::CreateMessage<FeedResponse>(arena.get());
      ASSERT_EQ(FillReply(store, /*alias=*/true, r), 4 * 200);
      ASSERT_TRUE(r->SerializeToString(&bytes));
      ASSERT_TRUE(bytes == want) << "reply " << reply << " is not the copy's bytes";
      arena.get()->Reset();
    }
    auto* last = Arena::CreateMessage<FeedResponse>(arena.get());
    ASSERT_EQ(FillReply(store, /*alias=*/true, last), 4 * 200);
  }  // the arena destroyed with a reply on it
  EXPECT_TRUE(EachSerialized(store) == before) << "a stored post changed";
  for (const Post& p : store) EXPECT_EQ(p.author().GetArena(), nullptr);
}

// On the heap the reply would own -- and delete -- the stored sub-message: refused,
// nothing set; the caller's copy then makes a reply of its own objects.
TEST(ArenaAliasTest, RefusesAMessageNotOnAnArena) {
  const RepeatedPtrField<Post> store = Store(2, /*long_text=*/true);
  const std::vector<std::string> before = EachSerialized(store);
  {
    Post post;
    const bool aliased = AliasSubMessage(&post, &Post::unsafe_arena_set_allocated_author, store.Get(0).author());
    EXPECT_FALSE(aliased);
    EXPECT_FALSE(post.has_author());
    DropShared(&post, store.Get(0));  // had it been set, ~Post would delete the store's author
  }
  {
    FeedResponse reply;  // a whole heap reply through the same code: copies only
    EXPECT_EQ(FillReply(store, /*alias=*/true, &reply), 0);
    for (int i = 0; i < reply.posts_size(); ++i) {
      EXPECT_EQ(SharedWith(reply.posts(i), store.Get(i)), 0) << "post " << i;
      DropShared(reply.mutable_posts(i), store.Get(i));
    }
  }
  EXPECT_TRUE(EachSerialized(store) == before) << "a stored post changed";
}

// Serializing reads the shared sub-messages and stores their cached sizes (relaxed
// atomics in protobuf 3.21): four threads at once, each with its own arena and
// replies, every reply the expected bytes. Under ThreadSanitizer: no report.
TEST(ArenaAliasTest, FourThreadsSerializeRepliesSharingSubMessages) {
  constexpr int kThreads = 4, kReplies = 40;
  const RepeatedPtrField<Post> store = Store(200, /*long_text=*/true);
  const std::vector<std::string> before = EachSerialized(store);
  FeedResponse whole;
  whole.set_request_id("req-1");
  for (const Post& p : store) whole.add_posts()->CopyFrom(p);
  const std::string want = whole.SerializeAsString();

  std::atomic<int> good{0}, mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      BlockArena arena(512 * 1024);  // built on this thread: its block is this thread's
      std::string bytes;
      for (int i = 0; i < kReplies; ++i) {
        auto* reply = Arena::CreateMessage<FeedResponse>(arena.get());
        const bool all_aliased = FillReply(store, /*alias=*/true, reply) == 4 * 200;
        const bool same = reply->SerializeToString(&bytes) && bytes == want;
        (all_aliased && same ? good : mismatches).fetch_add(1, std::memory_order_relaxed);
        arena.get()->Reset();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(good.load(), kThreads * kReplies);
  EXPECT_TRUE(EachSerialized(store) == before) << "a stored post changed";
}

}  // namespace
}  // namespace reco::patterns
