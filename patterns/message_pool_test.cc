// SPDX-License-Identifier: Apache-2.0
// Proves what message_pool.h claims about the pool and about proto3 Clear().
#include "patterns/message_pool.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "core/allocation_counter.h"
#include "gtest/gtest.h"
#include "proto/reco.pb.h"

namespace reco::patterns {
namespace {

using v1::RecommendResponse;

constexpr char kLongTitle[] = "a title longer than fifteen bytes";  // 33 bytes

// A response whose heap cost is easy to count. Per item: the Item, the title's
// std::string object and its 33-byte payload, the price, the currency's std::string
// object, the tags array and one short tag's std::string object = 7 mallocs.
// Per response: request_id (object + payload), metadata (message + one short
// string's object), the items array = 5 mallocs.
constexpr uint64_t kMallocsPerFreshItem = 7;
constexpr uint64_t kMallocsPerFreshResponse = 5;
void Fill(RecommendResponse* response, int items) {
  response->mutable_request_id()->assign("request-id-longer-than-15");
  response->mutable_metadata()->set_model_version("m1");
  response->mutable_items()->Reserve(items);
  for (int i = 0; i < items; ++i) {
    v1::Item* item = response->add_items();
    item->mutable_title()->assign(kLongTitle);
    item->mutable_price()->set_currency_code("EUR");
    item->add_tags("new");
  }
}

AllocationCounts Since(const AllocationCounts& before) { return AllocationCounter::ThisThread() - before; }

TEST(MessagePoolTest, FreshFillCostsWhatTheCommentSays) {
  constexpr int kItems = 10;
  RecommendResponse response;
  AllocationCounts before = AllocationCounter::ThisThread();
  Fill(&response, kItems);
  EXPECT_EQ(Since(before).allocs, kMallocsPerFreshResponse + kItems * kMallocsPerFreshItem);
}

// proto3 Clear() on a heap message: singular sub-messages are deleted (metadata and
// each item's price, with their string objects); everything else is kept.
TEST(MessagePoolTest, ClearFreesSingularSubMessagesOnly) {
  constexpr int kItems = 10;
  RecommendResponse response;
  Fill(&response, kItems);
  AllocationCounts before = AllocationCounter::ThisThread();
  response.Clear();
  AllocationCounts cleared = Since(before);
  EXPECT_EQ(cleared.allocs, 0u);
  EXPECT_EQ(cleared.frees, 2u + kItems * 2u);  // metadata + its string; price + its string, per item
  EXPECT_EQ(response.ByteSizeLong(), 0u);
  EXPECT_EQ(response.items_size(), 0);
}

// Refilling after Clear(): the kept items, strings and arrays cost nothing; only the
// deleted singular sub-messages are allocated again.
TEST(MessagePoolTest, RefillAfterClearMallocsOnlyTheSingularSubMessages) {
  constexpr int kItems = 10;
  RecommendResponse response;
  Fill(&response, kItems);
  response.Clear();
  AllocationCounts before = AllocationCounter::ThisThread();
  Fill(&response, kItems);
  EXPECT_EQ(Since(before).allocs, 2u + kItems * 2u);
  response.Clear();
  v1::Item* reused = response.add_items();  // a kept element, title emptied
  EXPECT_TRUE(reused->title().empty());
  EXPECT_GE(reused->title().capacity(), std::strlen(kLongTitle));  // capacity kept
}

TEST(MessagePoolTest, AcquireHandsBackTheReleasedMessageCleared) {
  MessagePool<RecommendResponse> pool(4);
  AllocationCounts before = AllocationCounter::ThisThread();
  std::unique_ptr<RecommendResponse> first = pool.Acquire();
  EXPECT_EQ(Since(before).allocs, 1u);  // the pool was empty: one new message
  RecommendResponse* address = first.get();
  Fill(first.get(), 3);
  pool.Release(std::move(first));
  EXPECT_EQ(pool.idle(), 1u);

  before = AllocationCounter::ThisThread();
  std::unique_ptr<RecommendResponse> second = pool.Acquire();
  EXPECT_EQ(Since(before).allocs, 0u);
  EXPECT_EQ(second.get(), address);
  EXPECT_EQ(second->ByteSizeLong(), 0u);
  EXPECT_EQ(pool.idle(), 0u);
}

// A 200-item cycle through the pool against a fresh heap message each time.
TEST(MessagePoolTest, PooledCycleSavesTheItemAndStringMallocs) {
  constexpr int kItems = 200;
  MessagePool<RecommendResponse> pool(1);
  pool.Release(pool.Acquire());  // warm: the pool holds one message
  { auto warm = pool.Acquire(); Fill(warm.get(), kItems); pool.Release(std::move(warm)); }

  AllocationCounts before = AllocationCounter::ThisThread();
  auto pooled = pool.Acquire();
  Fill(pooled.get(), kItems);
  pool.Release(std::move(pooled));
  AllocationCounts pooled_cost = Since(before);

  before = AllocationCounter::ThisThread();
  auto fresh = std::make_unique<RecommendResponse>();
  Fill(fresh.get(), kItems);
  fresh.reset();
  AllocationCounts fresh_cost = Since(before);

  EXPECT_EQ(pooled_cost.allocs, 2u + kItems * 2u);
  EXPECT_EQ(pooled_cost.frees, pooled_cost.allocs);  // Clear() freed what the fill made
  EXPECT_EQ(fresh_cost.allocs, 1u + kMallocsPerFreshResponse + kItems * kMallocsPerFreshItem);
  EXPECT_EQ(fresh_cost.frees, fresh_cost.allocs);
  std::printf("200-item cycle: pooled %llu mallocs, fresh %llu mallocs\n",
              static_cast<unsigned long long>(pooled_cost.allocs),
              static_cast<unsigned long long>(fresh_cost.allocs));
}

TEST(MessagePoolTest, KeepsAtMostMaxIdle) {
  MessagePool<RecommendResponse> pool(2);
  std::vector<std::unique_ptr<RecommendResponse>> out;
  for (int i = 0; i < 3; ++i) out.push_back(pool.Acquire());
  pool.Release(std::move(out[0]));
  pool.Release(std::move(out[1]));
  AllocationCounts before = AllocationCounter::ThisThread();
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
  MessagePool<RecommendResponse> pool(kMaxIdle);
  std::mutex mu;
  std::set<const RecommendResponse*> in_use;
  int shared = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        std::unique_ptr<RecommendResponse> m = pool.Acquire();
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
