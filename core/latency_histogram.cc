// See latency_histogram.h.
#include "core/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace reco {
namespace {

constexpr int kSubBuckets = 1 << LatencyHistogram::kSubBucketBits;
// Bucket layout: indices [0, 128) hold the values 0..127 exactly; after that each
// exponent e >= 7 (values in [2^e, 2^(e+1))) has 128 buckets of width 2^(e-7).
constexpr int kBucketCount = LatencyHistogram::kBucketCount;

}  // namespace

LatencyHistogram::LatencyHistogram() : buckets_(kBucketCount, 0) {}

int LatencyHistogram::BucketIndex(uint64_t v) {
  if (v < static_cast<uint64_t>(kSubBuckets)) return static_cast<int>(v);
  int e = 63 - __builtin_clzll(v);
  if (e >= kMaxExponent) return kBucketCount - 1;
  int sub = static_cast<int>((v >> (e - kSubBucketBits)) & (kSubBuckets - 1));
  return kSubBuckets + (e - kSubBucketBits) * kSubBuckets + sub;
}

uint64_t LatencyHistogram::BucketLow(int index) {
  if (index < kSubBuckets) return static_cast<uint64_t>(index);
  int e = (index - kSubBuckets) / kSubBuckets + kSubBucketBits;
  int sub = (index - kSubBuckets) % kSubBuckets;
  return (uint64_t{1} << e) + (static_cast<uint64_t>(sub) << (e - kSubBucketBits));
}

void LatencyHistogram::RecordN(uint64_t nanos, uint64_t n) {
  if (n == 0) return;
  buckets_[BucketIndex(nanos)] += n;
  count_ += n;
  sum_ += nanos * n;
  min_ = std::min(min_, nanos);
  max_ = std::max(max_, nanos);
}

void LatencyHistogram::AddToBucket(int index, uint64_t n) {
  if (n == 0 || index < 0 || index >= kBucketCount) return;
  buckets_[index] += n;
  count_ += n;
  uint64_t low = BucketLow(index);
  uint64_t high = index + 1 < kBucketCount ? BucketLow(index + 1) : low * 2;
  sum_ += (low + (high - low) / 2) * n;
  min_ = std::min(min_, low);
  max_ = std::max(max_, high - 1);
}

void LatencyHistogram::SetSummary(uint64_t sum, uint64_t min, uint64_t max) {
  sum_ = sum;
  min_ = min;
  max_ = max;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBucketCount; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LatencyHistogram::Clear() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = sum_ = max_ = 0;
  min_ = UINT64_MAX;
}

uint64_t LatencyHistogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // The rank of the wanted value, 1-based: the smallest r with r >= p% of count.
  uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (int i = 0; i < kBucketCount; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      if (i < kSubBuckets) return std::clamp<uint64_t>(i, min(), max_);
      uint64_t low = BucketLow(i);
      uint64_t high = i + 1 < kBucketCount ? BucketLow(i + 1) : low * 2;
      return std::clamp<uint64_t>(low + (high - low) / 2, min(), max_);
    }
  }
  return max_;
}

}  // namespace reco
