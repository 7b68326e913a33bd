// See histogram_proto.h.
#include "core/histogram_proto.h"

#include <unordered_map>

namespace reco {

void HistogramToProto(const LatencyHistogram& h, v1::Histogram* out) {
  out->Clear();
  out->set_count(h.count());
  out->set_sum_ns(static_cast<uint64_t>(h.mean() * static_cast<double>(h.count()) + 0.5));
  out->set_max_ns(h.max());
  out->set_p50_ns(h.Percentile(50));
  out->set_p90_ns(h.Percentile(90));
  out->set_p99_ns(h.Percentile(99));
  out->set_p999_ns(h.Percentile(99.9));
  const std::vector<uint64_t>& buckets = h.buckets();
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (buckets[i] == 0) continue;
    out->add_bucket_index(static_cast<uint32_t>(i));
    out->add_bucket_count(buckets[i]);
  }
}

LatencyHistogram HistogramFromProto(const v1::Histogram& wire) {
  LatencyHistogram h;
  int n = std::min(wire.bucket_index_size(), wire.bucket_count_size());
  uint64_t min = UINT64_MAX;
  for (int i = 0; i < n; ++i) {
    int index = static_cast<int>(wire.bucket_index(i));
    h.AddToBucket(index, wire.bucket_count(i));
    if (wire.bucket_count(i) > 0) min = std::min(min, LatencyHistogram::BucketLow(index));
  }
  if (h.count() > 0) h.SetSummary(wire.sum_ns(), min, wire.max_ns());
  return h;
}

LatencyHistogram HistogramDifference(const v1::Histogram& later, const v1::Histogram& earlier) {
  std::unordered_map<uint32_t, uint64_t> before;
  for (int i = 0; i < std::min(earlier.bucket_index_size(), earlier.bucket_count_size()); ++i) {
    before[earlier.bucket_index(i)] += earlier.bucket_count(i);
  }
  LatencyHistogram h;
  for (int i = 0; i < std::min(later.bucket_index_size(), later.bucket_count_size()); ++i) {
    uint64_t was = before.count(later.bucket_index(i)) ? before[later.bucket_index(i)] : 0;
    uint64_t now = later.bucket_count(i);
    if (now > was) h.AddToBucket(static_cast<int>(later.bucket_index(i)), now - was);
  }
  if (h.count() > 0 && later.sum_ns() >= earlier.sum_ns()) {
    // The exact sum survives subtraction; min and max stay at bucket edges.
    h.SetSummary(later.sum_ns() - earlier.sum_ns(), h.min(), h.max());
  }
  return h;
}

}  // namespace reco
