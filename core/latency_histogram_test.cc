#include "core/latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace reco {
namespace {

// The exact percentile by the same definition: the value at rank ceil(p% * n).
uint64_t ExactPercentile(std::vector<uint64_t> v, double p) {
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * v.size()));
  if (rank == 0) rank = 1;
  return v[rank - 1];
}

void ExpectWithinOnePercent(const std::vector<uint64_t>& values) {
  LatencyHistogram h;
  for (uint64_t v : values) h.Record(v);
  for (double p : {0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    double exact = static_cast<double>(ExactPercentile(values, p));
    double got = static_cast<double>(h.Percentile(p));
    EXPECT_LE(std::abs(got - exact), 0.01 * exact) << "p" << p << " exact " << exact << " got " << got;
  }
}

TEST(LatencyHistogramTest, PercentilesWithinOnePercentOnUniformData) {
  std::vector<uint64_t> v;
  for (uint64_t i = 1; i <= 100000; ++i) v.push_back(i * 37);
  ExpectWithinOnePercent(v);
}

TEST(LatencyHistogramTest, PercentilesWithinOnePercentOnLongTail) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(12.0, 1.5);  // median ~160 us, heavy tail
  std::vector<uint64_t> v;
  for (int i = 0; i < 200000; ++i) v.push_back(static_cast<uint64_t>(dist(rng)) + 1);
  ExpectWithinOnePercent(v);
}

TEST(LatencyHistogramTest, SmallValuesAreExactAndStatsAreRight) {
  LatencyHistogram h;
  for (uint64_t v : {5, 7, 9, 100}) h.Record(v);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), 5u);
  EXPECT_EQ(h.max(), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), 30.25);
  EXPECT_EQ(h.Percentile(50), 7u);
  EXPECT_EQ(h.Percentile(100), 100u);
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  for (uint64_t i = 1; i < 50000; i += 3) {
    (i % 2 ? a : b).Record(i * 101);
    all.Record(i * 101);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.buckets(), all.buckets());
  for (double p : {50.0, 99.0, 99.9}) EXPECT_EQ(a.Percentile(p), all.Percentile(p));
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
}

// What a report reader does with a histogram exported as its non-empty buckets plus
// count, sum, min and max: the rebuilt one must be the same histogram, not a copy
// that only agrees on percentiles (AddToBucket alone guesses sum, min and max).
TEST(LatencyHistogramTest, BucketsPlusSummaryRebuildItExactly) {
  LatencyHistogram original;
  for (uint64_t v : {3u, 130u, 12345u, 999999u, 1000003u, 77777777u}) original.Record(v);
  original.RecordN(250000, 17);
  LatencyHistogram rebuilt;
  for (int i = 0; i < LatencyHistogram::kBucketCount; ++i) {
    if (original.buckets()[i]) rebuilt.AddToBucket(i, original.buckets()[i]);
  }
  EXPECT_NE(rebuilt.sum(), original.sum()) << "AddToBucket alone should only estimate the sum";
  rebuilt.SetSummary(original.sum(), original.min(), original.max());
  EXPECT_EQ(rebuilt.buckets(), original.buckets());
  EXPECT_EQ(rebuilt.count(), original.count());
  EXPECT_EQ(rebuilt.sum(), original.sum());
  EXPECT_EQ(rebuilt.min(), original.min());
  EXPECT_EQ(rebuilt.max(), original.max());
  for (double p : {0.0, 50.0, 99.0, 100.0}) EXPECT_EQ(rebuilt.Percentile(p), original.Percentile(p));
  uint64_t expected_sum = 3 + 130 + 12345 + 999999 + 1000003 + 77777777 + 250000ull * 17;
  EXPECT_EQ(original.sum(), expected_sum);
}

TEST(LatencyHistogramTest, EmptyAndClampedValues) {
  LatencyHistogram h;
  EXPECT_EQ(h.Percentile(99), 0u);
  h.Record(uint64_t{1} << 50);  // beyond the range: clamped into the last bucket
  EXPECT_EQ(h.max(), uint64_t{1} << 50);
  EXPECT_EQ(h.Percentile(50), uint64_t{1} << 50);
  h.Clear();
  EXPECT_EQ(h.count(), 0u);
}

TEST(LatencyHistogramTest, BucketBoundsAreConsistent) {
  for (int i = 0; i + 1 < LatencyHistogram::kBucketCount; ++i) {
    EXPECT_EQ(LatencyHistogram::BucketIndex(LatencyHistogram::BucketLow(i)), i);
    EXPECT_LT(LatencyHistogram::BucketLow(i), LatencyHistogram::BucketLow(i + 1));
  }
}

}  // namespace
}  // namespace reco
