// SPDX-License-Identifier: Apache-2.0
// Proves what message_pool.h claims about the pool and about proto3 Clear().
#include "message_pool.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "feed.pb.h"
#include "gtest/gtest.h"
#include "testing/malloc_counter.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedResponse;
using feed::v1::Post;
using testing::MallocCounter;
using testing::MallocCounts;

constexpr char kLongTitle[] = "a title longer than fifteen bytes";  // 33 bytes

// A response whose heap cost is easy to count. Per post: the Post, the title's
// std::string object and its 33-byte payload, the author, its name's std::string
// object, the tags array and one short tag's std::string object = 7 mallocs.
// Per response: request_id (object + payload), metadata (message + one short
// string's object), the posts array = 5 mallocs.
constexpr uint64_t kMallocsPerFreshPost = 7;
constexpr uint64_t kMallocsPerFreshResponse = 5;
void Fill(FeedResponse* response, int posts) {
  response->mutable_request_id()->assign("request-id-longer-than-15");
  response->mutable_metadata()->set_model_version("m1");
  response->mutable_posts()->Reserve(posts);
  for (int i = 0; i < posts; ++i) {
    Post* post = response->add_posts();
    post->mutable_title()->assign(kLongTitle);
    post->mutable_author()->set_display_name("Ann");
    post->add_tags("new");
  }
}

MallocCounts Since(const MallocCounts& before) { return MallocCounter::ThisThread() - before; }

TEST(MessagePoolTest, FreshFillCostsWhatTheCommentSays) {
  constexpr int kPosts = 10;
  FeedResponse response;
  MallocCounts before = MallocCounter::ThisThread();
  Fill(&response, kPosts);
  EXPECT_EQ(Since(before).allocs, kMallocsPerFreshResponse + kPosts * kMallocsPerFreshPost);
}

// proto3 Clear() on a heap message: singular sub-messages are deleted (metadata and
// each post's author, with their string objects); everything else is kept.
TEST(MessagePoolTest, ClearFreesSingularSubMessagesOnly) {
  constexpr int kPosts = 10;
  FeedResponse response;
  Fill(&response, kPosts);
  MallocCounts before = MallocCounter::ThisThread();
  response.Clear();
  MallocCounts cleared = Since(before);
  EXPECT_EQ(cleared.allocs, 0u);
  EXPECT_EQ(cleared.frees, 2u + kPosts * 2u);  // metadata + its string; author + its string, per post
  EXPECT_EQ(response.ByteSizeLong(), 0u);
  EXPECT_EQ(response.posts_size(), 0);
}

// Refilling after Clear(): the kept posts, strings and arrays cost nothing; only the
// deleted singular sub-messages are allocated again.
TEST(MessagePoolTest, RefillAfterClearMallocsOnlyTheSingularSubMessages) {
  constexpr int kPosts = 10;
  FeedResponse response;
  Fill(&response, kPosts);
  response.Clear();
  MallocCounts before = MallocCounter::ThisThread();
  Fill(&response, kPosts);
  EXPECT_EQ(Since(before).allocs, 2u + kPosts * 2u);
  response.Clear();
  Post* reused = response.add_posts();  // a kept element, title emptied
  EXPECT_TRUE(reused->title().empty());
  EXPECT_GE(reused->title().capacity(), std::strlen(kLongTitle));  // capacity kept
}

TEST(MessagePoolTest, AcquireHandsBackTheReleasedMessageCleared) {
  MessagePool<FeedResponse> pool(4);
  MallocCounts before = MallocCounter::ThisThread();
  std::unique_ptr<FeedResponse> first = pool.Acquire();
  EXPECT_EQ(Since(before).allocs, 1u);  // the pool was empty: one new message
  FeedResponse* address = first.get();
  Fill(first.get(), 3);
  pool.Release(std::move(first));
  EXPECT_EQ(pool.idle(), 1u);

  before = MallocCounter::ThisThread();
  std::unique_ptr<FeedResponse> second = pool.Acquire();
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(second.get(), address);
  EXPECT_EQ(second->ByteSizeLong(), 0u);
  EXPECT_EQ(pool.idle(), 0u);
}

// A 200-post cycle through the pool against a fresh heap message each time.
TEST(MessagePoolTest, PooledCycleSavesThePostAndStringMallocs) {
  constexpr int kPosts = 200;
  MessagePool<FeedResponse> pool(1);
  pool.Release(pool.Acquire());  // warm: the pool holds one message
  {
    auto warm = pool.Acquire();
    Fill(warm.get(), kPosts);
    pool.Release(std::move(warm));
  }

  MallocCounts before = MallocCounter::ThisThread();
  auto pooled = pool.Acquire();
  Fill(pooled.get(), kPosts);
  pool.Release(std::move(pooled));
  MallocCounts pooled_cost = Since(before);

  before = MallocCounter::ThisThread();
  auto fresh = std::make_unique<FeedResponse>();
  Fill(fresh.get(), kPosts);
  fresh.reset();
  MallocCounts fresh_cost = Since(before);

  EXPECT_EQ(pooled_cost.allocs, 2u + kPosts * 2u);
  EXPECT_EQ(pooled_cost.frees, pooled_cost.allocs);  // Clear() freed what the fill made
  EXPECT_EQ(fresh_cost.allocs, 1u + kMallocsPerFreshResponse + kPosts * kMallocsPerFreshPost);
  EXPECT_EQ(fresh_cost.frees, fresh_cost.allocs);
  std::printf("200-post cycle: pooled %llu mallocs, fresh %llu mallocs\n",
              static_cast<unsigned long long>(pooled_cost.allocs), static_cast<unsigned long long>(fresh_cost.allocs));
}

TEST(MessagePoolTest, KeepsAtMostMaxIdle) {
  MessagePool<FeedResponse> pool(2);
  std::vector<std::unique_ptr<FeedResponse>> out;
  for (int i = 0; i < 3; ++i) out.push_back(pool.Acquire());
  pool.Release(std::move(out[0]));
  pool.Release(std::move(out[1]));
  MallocCounts before = MallocCounter::ThisThread();
  pool.Release(std::move(out[2]));  // over the bound: deleted
  EXPECT_EQ(Since(before).frees, 1u);
  EXPECT_EQ(pool.idle(), 2u);
}

// Concurrent Acquire/Release never hands one message to two threads at once, and
// the pool stays bounded.
TEST(MessagePoolTest, ThreadsNeverShareAMessage) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  constexpr size_t kMaxIdle = 2;
  MessagePool<FeedResponse> pool(kMaxIdle);
  std::mutex mu;
  std::set<const FeedResponse*> in_use;
  int shared = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        std::unique_ptr<FeedResponse> m = pool.Acquire();
        bool fresh_to_me;
        {
          std::lock_guard<std::mutex> lock(mu);
          fresh_to_me = in_use.insert(m.get()).second;
        }
        if (!fresh_to_me || m->ByteSizeLong() != 0) {
          std::lock_guard<std::mutex> lock(mu);
          ++shared;
        }
        m->set_request_id(std::to_string(t));
        {
          std::lock_guard<std::mutex> lock(mu);
          in_use.erase(m.get());
        }
        pool.Release(std::move(m));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(shared, 0);
  EXPECT_LE(pool.idle(), kMaxIdle);
}

}  // namespace
}  // namespace reco::patterns
