// MemoryTrimmer: trims when glibc holds freed memory the process churned through, gives
// it back (RSS falls), leaves alone what it already gave back, and trims less often
// while the process keeps taking back what it gave. Under glibc only: a
// sanitizer's allocator or a preloaded malloc keeps its own books (the test skips).
#include "server/memory_trimmer.h"

#include <cstring>
#include <vector>

#include "core/allocation_counter.h"
#include "gtest/gtest.h"
#include "server/process_metrics.h"

namespace reco {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// 128 MiB in 64 KiB blocks (under glibc's mmap threshold: they come from the heap),
// every page touched, then freed -- all but one more block allocated last, which pins
// the top of the heap so that only malloc_trim's madvise can give the pages back.
void* ChurnAndPinTop() {
  std::vector<void*> blocks;
  for (int i = 0; i < 2048; ++i) {
    blocks.push_back(std::malloc(64 * 1024));
    std::memset(blocks.back(), 1, 64 * 1024);
    asm volatile("" : : "g"(blocks.back()) : "memory");  // the compiler may not drop the pair
  }
  void* pin = std::malloc(64 * 1024);  // a size no free chunk serves yet: it comes from the top
  asm volatile("" : : "g"(pin) : "memory");
  for (void* b : blocks) std::free(b);
  return pin;
}

class MemoryTrimmerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kSanitized || AllocationCounter::MallocName() != "glibc") GTEST_SKIP() << "glibc's malloc only";
  }
  // A long interval: the thread stays asleep and the test drives TrimIfWorthIt().
  TrimOptions Manual() { return TrimOptions{absl::Hours(1), uint64_t{16} << 20}; }
};

TEST_F(MemoryTrimmerTest, GivesChurnedMemoryBackOnce) {
  MemoryTrimmer trimmer(Manual(), AllocationCounter::MallocName());
  ASSERT_TRUE(trimmer.enabled());
  void* pin = ChurnAndPinTop();
  const uint64_t before = ReadProcessMetrics().rss_bytes;
  EXPECT_TRUE(trimmer.TrimIfWorthIt());
  const uint64_t after = ReadProcessMetrics().rss_bytes;
  EXPECT_GT(before, after + (uint64_t{96} << 20)) << "RSS " << before << " -> " << after;
  MemoryTrimmer::Stats s = trimmer.stats();
  EXPECT_EQ(s.trims, 1u);
  EXPECT_GT(s.rss_bytes_returned, uint64_t{96} << 20);
  // Nothing churned since: the free bytes glibc still counts are the ones given back.
  EXPECT_FALSE(trimmer.TrimIfWorthIt());
  EXPECT_EQ(trimmer.stats().trims, 1u);
  std::free(pin);
}

// The same memory churned again after each trim, as steady large replies do: RSS grows
// back by what the trim returned, so the next trim waits twice as many looks each
// time, up to max_wait_intervals; the waits are counted.
TEST_F(MemoryTrimmerTest, WaitsLongerWhileItsMemoryIsTakenBack) {
  TrimOptions options = Manual();
  options.max_wait_intervals = 4;
  MemoryTrimmer trimmer(options, AllocationCounter::MallocName());
  std::vector<void*> pins{ChurnAndPinTop()};
  ASSERT_TRUE(trimmer.TrimIfWorthIt());
  // Each later trim waits for 2, then 4 (the cap), then 4 due looks.
  for (int wait : {2, 4, 4}) {
    pins.push_back(ChurnAndPinTop());  // takes the returned pages back
    for (int look = 1; look < wait; ++look)
      EXPECT_FALSE(trimmer.TrimIfWorthIt()) << "wait " << wait << " look " << look;
    EXPECT_TRUE(trimmer.TrimIfWorthIt()) << "wait " << wait;
  }
  MemoryTrimmer::Stats s = trimmer.stats();
  EXPECT_EQ(s.trims, 4u);
  EXPECT_EQ(s.waited, 1u + 3u + 3u);
  for (void* p : pins) std::free(p);
}

TEST_F(MemoryTrimmerTest, LeavesASmallHeapAlone) {
  MemoryTrimmer trimmer(Manual(), AllocationCounter::MallocName());
  for (int i = 0; i < 4096; ++i) std::free(std::malloc(8 * 1024));  // churn, but little held free
  trimmer.TrimIfWorthIt();                                          // may trim what earlier tests left; then:
  for (int i = 0; i < 4096; ++i) std::free(std::malloc(8 * 1024));
  EXPECT_FALSE(trimmer.TrimIfWorthIt()) << "8 KiB reused 4,096 times leaves far less than 16 MiB free";
}

TEST(MemoryTrimmerOffTest, ZeroIntervalOrAnotherMallocTurnsItOff) {
  EXPECT_FALSE(MemoryTrimmer(TrimOptions{absl::ZeroDuration(), 1}, "glibc").enabled());
  EXPECT_FALSE(MemoryTrimmer(TrimOptions{absl::Seconds(1), 1}, "mimalloc").enabled());
  MemoryTrimmer off(TrimOptions{absl::ZeroDuration(), 1}, "glibc");
  EXPECT_FALSE(off.TrimIfWorthIt());
}

// The range, said once for the flag and for in-process servers (Start checks it).
TEST(CheckTrimOptions, ZeroOrTenMillisecondsToADay) {
  for (absl::Duration ok : {absl::ZeroDuration(), absl::Milliseconds(10), absl::Hours(24)}) {
    EXPECT_TRUE(CheckTrimOptions(TrimOptions{ok, 1}).ok()) << ok;
  }
  for (absl::Duration bad : {absl::Nanoseconds(1), absl::Milliseconds(9), absl::Hours(25), -absl::Seconds(1)}) {
    EXPECT_NE(CheckTrimOptions(TrimOptions{bad, 1}).message().find(" is out of range: 0 (never) or [10ms, 24h]"),
              std::string::npos)
        << bad;
  }
  EXPECT_FALSE(CheckTrimOptions(TrimOptions{absl::Seconds(1), 1, 0}).ok());
}

}  // namespace
}  // namespace reco
