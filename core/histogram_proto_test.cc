#include "core/histogram_proto.h"

#include "gtest/gtest.h"

namespace reco {
namespace {

TEST(HistogramProtoTest, RoundTripKeepsPercentilesAndCount) {
  LatencyHistogram h;
  for (uint64_t i = 1; i <= 5000; ++i) h.Record(i * i);
  v1::Histogram wire;
  HistogramToProto(h, &wire);
  EXPECT_EQ(wire.count(), 5000u);
  EXPECT_EQ(wire.p99_ns(), h.Percentile(99));
  LatencyHistogram back = HistogramFromProto(wire);
  EXPECT_EQ(back.count(), h.count());
  EXPECT_EQ(back.buckets(), h.buckets());
  EXPECT_EQ(back.max(), h.max());
  for (double p : {50.0, 90.0, 99.0, 99.9}) EXPECT_EQ(back.Percentile(p), h.Percentile(p)) << p;
  EXPECT_NEAR(back.mean(), h.mean(), 1.0);
}

TEST(HistogramProtoTest, DifferenceOfSnapshotsIsTheWindowBetweenThem) {
  LatencyHistogram cumulative, window;
  for (uint64_t i = 1; i <= 1000; ++i) cumulative.Record(i * 1000);  // before the window
  v1::Histogram earlier;
  HistogramToProto(cumulative, &earlier);
  for (uint64_t i = 1; i <= 500; ++i) {  // the window: much slower values
    cumulative.Record(i * 100000);
    window.Record(i * 100000);
  }
  v1::Histogram later;
  HistogramToProto(cumulative, &later);
  LatencyHistogram diff = HistogramDifference(later, earlier);
  EXPECT_EQ(diff.count(), 500u);
  EXPECT_EQ(diff.buckets(), window.buckets());
  EXPECT_EQ(diff.Percentile(50), window.Percentile(50));
  EXPECT_NEAR(diff.mean(), window.mean(), 1.0);
}

}  // namespace
}  // namespace reco
