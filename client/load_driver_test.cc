#include "client/load_driver.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace reco {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

TEST(ScheduledAt, IsStartPlusNIntervals) {
  EXPECT_EQ(ScheduledAt(1000, 2.5, 0), 1000);
  EXPECT_EQ(ScheduledAt(1000, 2.5, 4), 1010);
  // --rate 0.001: a call every 1e12 ns, a day's worth of them.
  EXPECT_EQ(ScheduledAt(5'000'000'000, 1e12, 86), 86'005'000'000'000);
}

// --rate 1e-11 made the interval inf; inf (or a product past 2^63) converted to int64
// is undefined, and came out as a time in the past: ~20,000 calls sent, then a spin.
TEST(ScheduledAt, PastInt64IsNever) {
  const int64_t start = 123'456'789'000;
  EXPECT_EQ(ScheduledAt(start, std::numeric_limits<double>::infinity(), 1), kNever);
  EXPECT_EQ(ScheduledAt(start, std::numeric_limits<double>::infinity(), 0), kNever);  // 0 x inf
  EXPECT_EQ(ScheduledAt(start, 1e12, kNever / 2), kNever);
  EXPECT_EQ(ScheduledAt(start, 1e9, 9'300'000'000), kNever);  // 9.3e18 ns: just past
  // The last due time that fits is still a time, in order.
  const int64_t near = ScheduledAt(start, 1e9, 9'000'000'000);
  EXPECT_GT(near, start);
  EXPECT_LT(near, kNever);
}

}  // namespace
}  // namespace reco
