// SPDX-License-Identifier: Apache-2.0
// The counter the patterns' tests stand on, checked against allocations whose count
// and size are known; and the reply builder's promise about string lengths.
#include "malloc_counter.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "feed_builder.h"
#include "gtest/gtest.h"
#include "message_tree.h"

namespace reco::patterns::testing {
namespace {

// Keeps the compiler from eliding an allocation whose result is unused.
template <typename T>
void Escape(T* p) {
  asm volatile("" : : "g"(p) : "memory");
}

TEST(MallocCounterTest, CountsOperatorNewAndDelete) {
  MallocCounts before = MallocCounter::ThisThread();
  auto* s = new std::string(100, 'x');  // the string object, then its 101-byte buffer
  Escape(s);
  delete s;
  MallocCounts used = MallocCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 2u);
  EXPECT_EQ(used.frees, 2u);
  EXPECT_EQ(used.bytes, sizeof(std::string) + 101);
}

TEST(MallocCounterTest, CountsTheMallocFamily) {
  MallocCounts before = MallocCounter::ThisThread();
  void* a = std::malloc(10);
  void* b = std::calloc(4, 8);
  a = std::realloc(a, 1000);  // one allocation and one free
  void* c = nullptr;
  ASSERT_EQ(posix_memalign(&c, 64, 128), 0);
  void* d = std::aligned_alloc(64, 256);
  Escape(a), Escape(b), Escape(c), Escape(d);
  std::free(a);
  std::free(b);
  std::free(c);
  std::free(d);
  std::free(nullptr);  // not a free
  MallocCounts used = MallocCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 5u);
  EXPECT_EQ(used.frees, 5u);
  EXPECT_EQ(used.bytes, 10u + 32 + 1000 + 128 + 256);
}

TEST(MallocCounterTest, CountsAlignedAndArrayNew) {
  struct alignas(128) Wide {
    char c[256];
  };
  MallocCounts before = MallocCounter::ThisThread();
  auto* w = new Wide;
  auto* arr = new int[50];
  Escape(w), Escape(arr);
  delete w;
  delete[] arr;
  MallocCounts used = MallocCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 2u);
  EXPECT_EQ(used.frees, 2u);
  EXPECT_EQ(used.bytes, 256u + 200);
}

TEST(MallocCounterTest, EachThreadCountsItsOwn) {
  MallocCounts mine_before = MallocCounter::ThisThread();
  MallocCounts other;
  std::thread t([&] {
    MallocCounts b = MallocCounter::ThisThread();
    for (int i = 0; i < 1000; ++i) {
      void* p = std::malloc(16);
      Escape(p);
      std::free(p);
    }
    other = MallocCounter::ThisThread() - b;
  });
  t.join();
  MallocCounts mine = MallocCounter::ThisThread() - mine_before;
  EXPECT_EQ(other.allocs, 1000u);
  EXPECT_EQ(other.frees, 1000u);
  EXPECT_EQ(other.bytes, 16000u);
  // Starting and joining a thread allocates its stack bookkeeping here, but nothing
  // like the other thread's thousand.
  EXPECT_LT(mine.allocs, 100u);
}

TEST(FeedBuilderTest, ShortTextKeepsEveryStringInTheSmallBuffer) {
  feed::v1::FeedRequest request;
  request.set_post_count(200);
  feed::v1::FeedResponse response;
  FillFeed(request, &response);
  ASSERT_EQ(response.posts_size(), 200);
  EXPECT_EQ(StringsLongerThan(response, 15), 0);
  // Every post has its 4 sub-messages: 1 response + 1 metadata + 200 * 5.
  EXPECT_EQ(AllMessages(response).size(), 2u + 200 * 5);
}

TEST(FeedBuilderTest, LongTextMakesEveryStringLong) {
  feed::v1::FeedRequest request;
  request.set_post_count(10);
  request.set_long_text(true);
  feed::v1::FeedResponse response;
  FillFeed(request, &response);
  // 10 posts of 10 strings (id, title, body, 3 tags, 2 author, 2 media), the
  // response's id and the model version.
  EXPECT_EQ(StringsLongerThan(response, 15), 10 * 10 + 2);
  EXPECT_EQ(StringsLongerThan(response, 0), 10 * 10 + 2);
}

}  // namespace
}  // namespace reco::patterns::testing
