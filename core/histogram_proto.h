// Conversions between LatencyHistogram and its wire form, reco.v1.Histogram.
//
// The wire form carries the non-empty buckets, so a histogram survives the trip
// exactly (percentiles computed on either side agree) and two snapshots of a
// server's cumulative histogram can be subtracted to get the window between them.
//
// Example:
//   reco::v1::Histogram wire;
//   reco::HistogramToProto(server_histogram, &wire);
//   reco::LatencyHistogram back = reco::HistogramFromProto(wire);
//   // back.Percentile(99) == server_histogram.Percentile(99)
#ifndef ARENA_GRPC_CORE_HISTOGRAM_PROTO_H_
#define ARENA_GRPC_CORE_HISTOGRAM_PROTO_H_

#include "core/latency_histogram.h"
#include "proto/stats.pb.h"

namespace reco {

void HistogramToProto(const LatencyHistogram& histogram, v1::Histogram* out);
LatencyHistogram HistogramFromProto(const v1::Histogram& wire);

// later - earlier, bucket by bucket, for two snapshots of one cumulative histogram.
// max() of the result is the upper edge of its highest non-empty bucket (the exact
// maximum of a window cannot be recovered from two snapshots).
LatencyHistogram HistogramDifference(const v1::Histogram& later, const v1::Histogram& earlier);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_HISTOGRAM_PROTO_H_
