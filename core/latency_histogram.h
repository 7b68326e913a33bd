// LatencyHistogram: a log-linear histogram of durations with at most 1% relative
// error, small enough to keep one per thread and merge at the end.
//
// Values are nanoseconds. Each power-of-two range [2^e, 2^(e+1)) is split into 128
// equal sub-buckets, so a bucket is at most 1/128 (0.8%) of its values wide; a
// percentile is reported as the middle of its bucket, within 0.4% of the exact
// value. Values below 128 ns are exact; values of 2^40 ns (18 minutes) and more
// are clamped into the last bucket (max() stays exact).
// (Debian 12 has no HdrHistogram for C++; this is the same idea, kept minimal.)
//
// Example:
//   reco::LatencyHistogram h;
//   for (int i = 1; i <= 1000; ++i) h.Record(i * 1000);   // 1 us .. 1 ms
//   h.Percentile(50);   // ~500000 (within 1%)
//   h.count();          // 1000
//
// Thread-safety: none; one writer at a time. Merge() per-thread histograms to
// combine them (that is exact: same buckets).
#ifndef ARENA_GRPC_CORE_LATENCY_HISTOGRAM_H_
#define ARENA_GRPC_CORE_LATENCY_HISTOGRAM_H_

#include <cstdint>
#include <vector>

namespace reco {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;  // 128 sub-buckets: <= 1/128 relative width
  static constexpr int kMaxExponent = 40;   // 2^40 ns ~ 18 minutes
  // Values 0..127 exactly, then 128 buckets per power of two from 2^7 to 2^39.
  static constexpr int kBucketCount = (1 << kSubBucketBits) * (1 + kMaxExponent - kSubBucketBits);

  LatencyHistogram();

  void Record(uint64_t nanos) { RecordN(nanos, 1); }
  void RecordN(uint64_t nanos, uint64_t n);
  void Merge(const LatencyHistogram& other);
  // Adds n values to bucket `index` (as if recorded at its low edge for min, its
  // midpoint for the sum), for rebuilding a histogram from exported buckets.
  // sum, min and max are then set by the caller with SetSummary when it knows them.
  // Buckets plus SetSummary(sum(), min(), max()) of the original rebuild it exactly
  // (a report reader relies on it to merge reports: client/report/report_reader.h).
  void AddToBucket(int index, uint64_t n);
  // Call it only on a non-empty histogram: an empty one has no min to set.
  void SetSummary(uint64_t sum, uint64_t min, uint64_t max);
  void Clear();

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  // The exact sum of the recorded values (mean() as a double would round it).
  uint64_t sum() const { return sum_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
  // p in [0, 100]: the smallest recorded value v such that p% of values are <= v,
  // reported as its bucket's midpoint (clamped to [min, max]). 0 when empty.
  uint64_t Percentile(double p) const;

  // The raw buckets, for exporting: index i covers [BucketLow(i), BucketLow(i+1)).
  const std::vector<uint64_t>& buckets() const { return buckets_; }
  static uint64_t BucketLow(int index);
  static int BucketIndex(uint64_t nanos);

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace reco

#endif  // ARENA_GRPC_CORE_LATENCY_HISTOGRAM_H_
