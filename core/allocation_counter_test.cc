#include "core/allocation_counter.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace reco {
namespace {

// Keeps the compiler from eliding an allocation whose result is unused.
template <typename T>
void Escape(T* p) {
  asm volatile("" : : "g"(p) : "memory");
}

TEST(AllocationCounterTest, CountsOperatorNewAndDelete) {
  AllocationCounts before = AllocationCounter::ThisThread();
  auto* s = new std::string(100, 'x');  // the string object, then its 101-byte buffer
  Escape(s);
  delete s;
  AllocationCounts used = AllocationCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 2u);
  EXPECT_EQ(used.frees, 2u);
  EXPECT_EQ(used.bytes, sizeof(std::string) + 101);
}

TEST(AllocationCounterTest, CountsTheMallocFamily) {
  AllocationCounts before = AllocationCounter::ThisThread();
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
  AllocationCounts used = AllocationCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 5u);
  EXPECT_EQ(used.frees, 5u);
  EXPECT_EQ(used.bytes, 10u + 32 + 1000 + 128 + 256);
}

TEST(AllocationCounterTest, CountsAlignedAndArrayNew) {
  struct alignas(128) Wide {
    char c[256];
  };
  AllocationCounts before = AllocationCounter::ThisThread();
  auto* w = new Wide;
  auto* arr = new int[50];
  Escape(w), Escape(arr);
  delete w;
  delete[] arr;
  AllocationCounts used = AllocationCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 2u);
  EXPECT_EQ(used.frees, 2u);
  EXPECT_EQ(used.bytes, 256u + 200);
}

TEST(AllocationCounterTest, ThreadsAreSeparateAndTheProcessSeesAll) {
  AllocationCounts mine_before = AllocationCounter::ThisThread();
  AllocationCounts process_before = AllocationCounter::Process();
  AllocationCounts other;
  std::thread t([&] {
    AllocationCounts b = AllocationCounter::ThisThread();
    for (int i = 0; i < 1000; ++i) {
      void* p = std::malloc(16);
      Escape(p);
      std::free(p);
    }
    other = AllocationCounter::ThisThread() - b;
  });
  t.join();
  AllocationCounts mine = AllocationCounter::ThisThread() - mine_before;
  AllocationCounts process = AllocationCounter::Process() - process_before;
  EXPECT_EQ(other.allocs, 1000u);
  EXPECT_EQ(other.frees, 1000u);
  // This thread made the std::thread's state: a few allocations, far fewer than 1000.
  EXPECT_LT(mine.allocs, 10u);
  // The process total includes the exited thread's work.
  EXPECT_GE(process.allocs, 1000u + mine.allocs);
  EXPECT_GE(process.frees, 1000u);
}

TEST(AllocationCounterTest, NamesTheMallocInUse) {
  std::string name = AllocationCounter::MallocName();
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(name, "asan");  // RECO_SANITIZE=address: libasan serves malloc
#elif defined(__SANITIZE_THREAD__)
  EXPECT_EQ(name, "tsan");  // RECO_SANITIZE=thread: libtsan serves malloc
#else
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload == nullptr || *preload == '\0') {
    EXPECT_EQ(name, "glibc");
  } else {
    EXPECT_NE(name, "glibc") << "LD_PRELOAD=" << preload;
  }
#endif
}

}  // namespace
}  // namespace reco
