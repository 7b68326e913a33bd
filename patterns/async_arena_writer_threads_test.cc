// SPDX-License-Identifier: Apache-2.0
// async_arena_writer.h's own threading, without a server (so ThreadSanitizer judges
// it: Debian's gRPC is not built with TSan): SendFromPooledArena, the arena part of
// AsyncArenaWriter, called from the threads a test picks. `send` stands in for
// ServerAsyncWriter::Write: it serializes the page before it returns, as Write does.
#include "async_arena_writer.h"

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "feed.pb.h"
#include "gtest/gtest.h"
#include "testing/feed_pages.h"
#include "testing/malloc_counter.h"
#include "testing/worker_thread.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;
using testing::MallocCounter;
using testing::MallocCounts;

constexpr size_t kBlockBytes = 64 * 1024;

FeedRequest Request(uint32_t posts, uint32_t page_size) {
  FeedRequest request;
  request.set_post_count(posts);
  request.set_page_size(page_size);
  return request;
}

// Serializes into room reserved up front, so sending mallocs nothing either.
class Sink {
 public:
  Sink() { bytes_.reserve(64 * 1024); }
  void Send(const FeedResponse& page) {
    bytes_.resize(page.ByteSizeLong());
    page.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(bytes_.data()));
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Page `index` of `request` through SendFromPooledArena; returns what it cost this
// thread (taking an arena, building, sending, resetting, parking), and the page's
// address in *where.
MallocCounts SendPage(IdlePool<BlockArena>* arenas, const FeedRequest& request, uint32_t index, Sink* sink,
                      const FeedResponse** where = nullptr) {
  const MallocCounts before = MallocCounter::ThisThread();
  SendFromPooledArena<FeedResponse>(
      arenas, kBlockBytes,
      [&](FeedResponse* page) {
        if (where != nullptr) *where = page;
        return testing::FillFeedPage(request, index, page);
      },
      [&](const FeedResponse& page) { sink->Send(page); });
  return MallocCounter::ThisThread() - before;
}

// The arena is out of the pool from the build until `send` returns -- nobody else can
// build over the page while it is being written -- and back in it, reset, right
// after: the next page is built at the very same address.
TEST(SendFromPooledArenaTest, TheArenaIsOutOfThePoolUntilSendReturnsAndReusedAfter) {
  IdlePool<BlockArena> arenas(4);
  const FeedRequest request = Request(30, 10);
  const std::vector<FeedResponse> expected = testing::ExpectedPages(request);
  const FeedResponse* first = nullptr;
  int sent = 0;
  SendFromPooledArena<FeedResponse>(
      &arenas, kBlockBytes,
      [&](FeedResponse* page) {
        first = page;
        return testing::FillFeedPage(request, 0, page);
      },
      [&](const FeedResponse& page) {
        ++sent;
        EXPECT_EQ(arenas.idle(), 0u) << "the page being sent's arena is in the pool";
        EXPECT_EQ(page.SerializeAsString(), expected[0].SerializeAsString());
      });
  EXPECT_EQ(sent, 1);
  EXPECT_EQ(arenas.idle(), 1u);

  Sink sink;
  for (uint32_t index = 1; index < expected.size(); ++index) {
    const FeedResponse* page = nullptr;
    SendPage(&arenas, request, index, &sink, &page);
    EXPECT_EQ(page, first) << "page " << index << " was not built on the reset arena";
    EXPECT_EQ(sink.bytes(), expected[index].SerializeAsString());
  }
  // Past the last page: fill says no, send is not called, the arena goes back.
  SendFromPooledArena<FeedResponse>(
      &arenas, kBlockBytes, [&](FeedResponse* page) { return testing::FillFeedPage(request, 3, page); },
      [&](const FeedResponse&) { ++sent; });
  EXPECT_EQ(sent, 1);
  EXPECT_EQ(arenas.idle(), 1u);
}

// Strings over 15 bytes keep their characters on the heap even on an arena (protobuf
// 3.21): one malloc each. The Reset() after send frees them all before
// SendFromPooledArena returns, so an idle arena holds nothing but its block.
TEST(SendFromPooledArenaTest, ALongTextPageIsFreedBeforeTheCallReturns) {
  IdlePool<BlockArena> arenas(4);
  FeedRequest request = Request(10, 10);
  Sink sink;
  SendPage(&arenas, request, 0, &sink);  // short text: makes the arena, leaves nothing to free
  request.set_long_text(true);
  const MallocCounts cost = SendPage(&arenas, request, 0, &sink);
  EXPECT_EQ(cost.allocs, 10u * 10) << "10 long strings in each of 10 posts";
  EXPECT_EQ(cost.frees, cost.allocs);
  EXPECT_EQ(sink.bytes(), testing::ExpectedPages(request)[0].SerializeAsString());
}

// protobuf's trap: the arena thread a reset last is taken on thread b. Re-bound, it
// costs nothing there: after the very first page (which made the arena), no page
// mallocs or frees on the thread that builds it.
TEST(SendFromPooledArenaTest, AfterWarmUpAPageOnAnyThreadMallocsNothing) {
  IdlePool<BlockArena> arenas(4);
  const FeedRequest request = Request(100, 20);  // 5 pages of 20 short-text posts
  const std::vector<FeedResponse> expected = testing::ExpectedPages(request);
  testing::WorkerThread a, b;
  Sink sink_a, sink_b;
  std::vector<MallocCounts> costs;
  costs.reserve(4 * expected.size());
  for (int round = 0; round < 4; ++round) {
    for (uint32_t index = 0; index < expected.size(); ++index) {
      const bool on_a = (round + index) % 2 == 0;  // every page on the other thread
      Sink* sink = on_a ? &sink_a : &sink_b;
      (on_a ? a : b).Run([&] { costs.push_back(SendPage(&arenas, request, index, sink)); });
      EXPECT_EQ(sink->bytes(), expected[index].SerializeAsString()) << "round " << round << " page " << index;
    }
  }
  ASSERT_EQ(costs.size(), 4 * expected.size());
  EXPECT_EQ(costs[0].allocs, 2u) << "the first page: a BlockArena and its block";
  for (size_t i = 1; i < costs.size(); ++i) {
    EXPECT_EQ(costs[i].allocs, 0u) << "page " << i;
    EXPECT_EQ(costs[i].frees, 0u) << "page " << i;
  }
  EXPECT_EQ(arenas.idle(), 1u) << "one arena served every page";
}

// Two threads send at once from one pool: arenas move between them (TSan judges the
// hand-off). Every page is right, and once the two arenas two threads can hold
// exist, no page costs a malloc.
TEST(SendFromPooledArenaTest, TwoThreadsShareOnePoolWithoutMalloc) {
  constexpr int kRounds = 40;
  IdlePool<BlockArena> arenas(4);
  const FeedRequest request = Request(30, 10);
  const std::vector<FeedResponse> expected = testing::ExpectedPages(request);
  {
    // Two arenas out of the pool at once: both made.
    Sink sink;
    SendFromPooledArena<FeedResponse>(
        &arenas, kBlockBytes, [&](FeedResponse* page) { return testing::FillFeedPage(request, 0, page); },
        [&](const FeedResponse&) { SendPage(&arenas, request, 0, &sink); });
    ASSERT_EQ(arenas.idle(), 2u);
  }
  auto run = [&](int* wrong_pages, uint64_t* mallocs) {
    Sink sink;
    for (int round = 0; round < kRounds; ++round) {
      for (uint32_t index = 0; index < expected.size(); ++index) {
        const MallocCounts cost = SendPage(&arenas, request, index, &sink);
        *mallocs += cost.allocs + cost.frees;
        if (sink.bytes() != expected[index].SerializeAsString()) ++*wrong_pages;
      }
    }
  };
  int wrong_1 = 0, wrong_2 = 0;
  uint64_t mallocs_1 = 0, mallocs_2 = 0;
  std::thread t1(run, &wrong_1, &mallocs_1), t2(run, &wrong_2, &mallocs_2);
  t1.join();
  t2.join();
  EXPECT_EQ(wrong_1 + wrong_2, 0);
  EXPECT_EQ(mallocs_1, 0u);
  EXPECT_EQ(mallocs_2, 0u);
  EXPECT_EQ(arenas.idle(), 2u);
}

}  // namespace
}  // namespace reco::patterns
