// SPDX-License-Identifier: Apache-2.0
// arena_write_reactor.h's own threading, without a server (so ThreadSanitizer judges
// it: Debian's gRPC is not built with TSan). A ServerWriteReactor that gRPC has not
// bound to a call keeps what StartWrite and Finish ask for and returns, so a test can
// drive the reactions itself, on the threads it picks: the constructor builds page 0,
// each OnWriteDone(true) gives that page's arena back and builds the next, as gRPC
// would from its own threads.
#include "arena_write_reactor.h"

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
using testing::PageLog;

constexpr size_t kBlockBytes = 64 * 1024;  // a 10-post page of short strings fits many times

// The pages of `request`, each recorded with what building it cost (from the
// reaction's start: giving the last arena back, taking one, building the page).
class PostPages final : public ArenaWriteReactor<FeedResponse> {
 public:
  PostPages(IdlePool<BlockArena>* arenas, const FeedRequest& request, PageLog* log)
      : ArenaWriteReactor(arenas, kBlockBytes), request_(request), log_(log) {
    build_start_ = MallocCounter::ThisThread();
    NextWrite();
  }
  void OnWriteDone(bool ok) override {
    build_start_ = MallocCounter::ThisThread();
    ArenaWriteReactor::OnWriteDone(ok);
  }
  bool NextPage(FeedResponse* page) override {
    if (!testing::FillFeedPage(request_, next_, page)) return false;
    ++next_;
    log_->Record(page, MallocCounter::ThisThread() - build_start_);
    return true;
  }

 private:
  const FeedRequest& request_;
  PageLog* const log_;
  uint32_t next_ = 0;
  MallocCounts build_start_;
};

FeedRequest Request(uint32_t posts, uint32_t page_size) {
  FeedRequest request;
  request.set_post_count(posts);
  request.set_page_size(page_size);
  return request;
}

std::string Bytes(const FeedResponse& page) { return page.SerializeAsString(); }

// The rule the pattern exists for: from StartWrite to OnWriteDone, gRPC may still read
// the page (arena_write_reactor.h, the trap), so its arena must not be in the pool
// where another stream would take it and build over the page.
TEST(ArenaWriteReactorThreadsTest, APageKeepsItsArenaUntilOnWriteDone) {
  IdlePool<BlockArena> arenas(4);
  const FeedRequest a = Request(30, 10), b = Request(30, 3);
  const std::vector<FeedResponse> expected_a = testing::ExpectedPages(a);
  const std::vector<FeedResponse> expected_b = testing::ExpectedPages(b);
  PageLog log_a, log_b;

  auto* stream_a = new PostPages(&arenas, a, &log_a);  // page 0 written, not yet done
  EXPECT_EQ(arenas.idle(), 0u) << "the page in flight's arena is in the pool";
  auto* stream_b = new PostPages(&arenas, b, &log_b);  // another stream starts meanwhile
  const FeedResponse* a0 = log_a.pages().at(0);
  EXPECT_NE(log_b.pages().at(0)->GetArena(), a0->GetArena());
  EXPECT_EQ(Bytes(*a0), Bytes(expected_a[0])) << "another stream built over a page in flight";

  stream_a->OnWriteDone(true);  // page 0 is done: its arena serves page 1, at the same place
  EXPECT_EQ(log_a.pages().at(1), a0);
  EXPECT_EQ(Bytes(*log_a.pages().at(1)), Bytes(expected_a[1]));
  EXPECT_EQ(arenas.idle(), 0u);

  for (size_t page = 2; page <= expected_a.size(); ++page) stream_a->OnWriteDone(true);  // the last: Finish
  for (size_t page = 1; page <= expected_b.size(); ++page) stream_b->OnWriteDone(true);
  EXPECT_EQ(log_a.pages().size(), expected_a.size());
  EXPECT_EQ(log_b.pages().size(), expected_b.size());
  EXPECT_EQ(arenas.idle(), 2u) << "both arenas back once the streams finished";
  stream_a->OnDone();  // deletes it
  stream_b->OnDone();
}

// A failed write (the client left) ends the stream: the arena goes back reset -- the
// page's long strings (heap, one malloc each even on an arena) freed -- and no more
// pages are built.
TEST(ArenaWriteReactorThreadsTest, AFailedWriteGivesTheArenaBackResetAndBuildsNoMore) {
  IdlePool<BlockArena> arenas(4);
  FeedRequest request = Request(30, 10);
  request.set_long_text(true);
  PageLog log;
  auto* stream = new PostPages(&arenas, request, &log);
  EXPECT_EQ(arenas.idle(), 0u);
  const MallocCounts before = MallocCounter::ThisThread();
  stream->OnWriteDone(false);
  const MallocCounts used = MallocCounter::ThisThread() - before;
  EXPECT_EQ(used.frees, 10u * 10) << "the page's 10 posts of 10 long strings each";
  EXPECT_EQ(used.allocs, 0u);
  EXPECT_EQ(arenas.idle(), 1u);
  EXPECT_EQ(log.pages().size(), 1u);
  stream->OnDone();
}

// Strings over 15 bytes keep their characters on the heap even on an arena (protobuf
// 3.21): one malloc each. Each OnWriteDone's Reset() frees the written page's, so a
// whole stream (the reactor object included) frees all it mallocs by its end, and an
// idle arena holds nothing but its block.
TEST(ArenaWriteReactorThreadsTest, ALongTextStreamFreesEverythingByItsEnd) {
  IdlePool<BlockArena> arenas(4);
  FeedRequest request = Request(30, 10);
  request.set_long_text(true);
  PageLog log;
  auto run_stream = [&] {
    auto* stream = new PostPages(&arenas, request, &log);
    for (int page = 1; page <= 3; ++page) stream->OnWriteDone(true);
    stream->OnDone();
  };
  run_stream();  // makes the arena
  const MallocCounts before = MallocCounter::ThisThread();
  run_stream();
  const MallocCounts used = MallocCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 1u + 30 * 10) << "the reactor, and 10 long strings in each of 30 posts";
  EXPECT_EQ(used.frees, used.allocs);
}

// protobuf's trap: a stream that starts on thread B takes the arena that thread A
// reset last. The pattern re-binds it to B, so after the very first page (which made
// the arena) no page costs a malloc or a free on the thread that builds it -- the
// count covers giving the last page's arena back, taking one, and building.
TEST(ArenaWriteReactorThreadsTest, BuildingOnAnyThreadAfterWarmUpMallocsNothing) {
  IdlePool<BlockArena> arenas(4);
  const FeedRequest request = Request(45, 10);  // 5 pages
  const std::vector<FeedResponse> expected = testing::ExpectedPages(request);
  testing::WorkerThread a, b;
  PageLog log;

  // Each stream starts on `first`, alternates its reactions between the two threads,
  // and ends on `first` too: the reaction after its last page resets the arena there.
  // The next stream starts on the other thread.
  auto run_stream = [&](testing::WorkerThread& first, testing::WorkerThread& second) {
    const size_t before = log.pages().size();
    PostPages* stream = nullptr;
    first.Run([&] { stream = new PostPages(&arenas, request, &log); });
    for (size_t page = 1; page <= expected.size(); ++page) {
      (page % 2 == expected.size() % 2 ? first : second).Run([&] { stream->OnWriteDone(true); });
    }
    std::vector<const FeedResponse*> pages = log.pages();
    EXPECT_EQ(pages.size() - before, expected.size());
    stream->OnDone();
  };
  run_stream(a, b);  // its first page makes the arena (on a)
  run_stream(b, a);  // starts on b with the arena a reset last
  run_stream(a, b);  // and back
  run_stream(b, a);

  std::vector<MallocCounts> builds = log.builds();
  ASSERT_EQ(builds.size(), 4 * expected.size());
  EXPECT_EQ(builds[0].allocs, 2u) << "the first page: a BlockArena and its block";
  for (size_t i = 1; i < builds.size(); ++i) {
    EXPECT_EQ(builds[i].allocs, 0u) << "page " << i;
    EXPECT_EQ(builds[i].frees, 0u) << "page " << i;
  }
  EXPECT_EQ(arenas.idle(), 1u) << "one arena served every page";
}

// Two threads run streams at once on one pool: arenas move between them through the
// pool (TSan judges the hand-off). Every page is right when built, and after a
// warm-up that makes the two arenas two threads can hold, no page costs a malloc.
TEST(ArenaWriteReactorThreadsTest, StreamsOnTwoThreadsShareOnePoolWithoutMalloc) {
  constexpr int kStreamsPerThread = 40;
  IdlePool<BlockArena> arenas(4);
  const FeedRequest request = Request(30, 10);  // 3 pages
  const std::vector<FeedResponse> expected = testing::ExpectedPages(request);
  {
    // Warm-up: two streams in flight at once make the two arenas.
    PageLog log;
    auto* one = new PostPages(&arenas, request, &log);
    auto* two = new PostPages(&arenas, request, &log);
    for (size_t page = 1; page <= expected.size(); ++page) one->OnWriteDone(true), two->OnWriteDone(true);
    one->OnDone();
    two->OnDone();
    ASSERT_EQ(arenas.idle(), 2u);
  }
  auto run = [&](int* wrong_pages, uint64_t* mallocs) {
    PageLog log;
    for (int s = 0; s < kStreamsPerThread; ++s) {
      const size_t first = log.pages().size();
      auto* stream = new PostPages(&arenas, request, &log);
      for (size_t page = 0; page < expected.size(); ++page) {
        // The page in flight, checked before its OnWriteDone lets its arena go.
        if (Bytes(*log.pages().at(first + page)) != Bytes(expected[page])) ++*wrong_pages;
        stream->OnWriteDone(true);
      }
      stream->OnDone();
    }
    for (const MallocCounts& build : log.builds()) *mallocs += build.allocs + build.frees;
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
