#include "client/paired_ratio.h"

#include "gtest/gtest.h"

namespace reco {
namespace {

TEST(PairRounds, MedianMinMaxOfThePerRoundRatios) {
  // Round ratios 1.1, 1.5, 1.2: the median is the middle one, not the ratio of sums (1.267).
  std::optional<PairedRatio> r = PairRounds({110, 150, 120}, {100, 100, 100});
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->median, 1.2);
  EXPECT_DOUBLE_EQ(r->min, 1.1);
  EXPECT_DOUBLE_EQ(r->max, 1.5);
  EXPECT_EQ(r->rounds, 3);
  EXPECT_EQ(r->skipped, 0);
  EXPECT_TRUE(r->measurable());
  EXPECT_EQ(FormatPairedRatio(*r), "x1.20 [1.10-1.50]");
}

TEST(PairRounds, PairsByRoundNotBySize) {
  // Sorted separately the values would pair 100/300 and 300/100; paired by round they
  // are 1/3 and 3: the median of an even count is the mean of the middle two.
  std::optional<PairedRatio> r = PairRounds({100, 300}, {300, 100});
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->median, (1.0 / 3 + 3.0) / 2);
  EXPECT_DOUBLE_EQ(r->min, 1.0 / 3);
  EXPECT_DOUBLE_EQ(r->max, 3.0);
}

TEST(PairRounds, ASpreadAcrossOneIsNoMeasurableDifference) {
  std::optional<PairedRatio> r = PairRounds({95, 110, 104}, {100, 100, 100});
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->measurable());
  EXPECT_EQ(FormatPairedRatio(*r), "~1 [0.95-1.10]");
  // Touching 1.0 counts as crossing it.
  EXPECT_FALSE(PairRounds({100, 120}, {100, 100})->measurable());
  EXPECT_TRUE(PairRounds({90, 99}, {100, 100})->measurable());
}

TEST(PairRounds, OneRoundHasNoSpread) {
  std::optional<PairedRatio> r = PairRounds({143}, {100});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rounds, 1);
  EXPECT_FALSE(r->measurable());
  EXPECT_EQ(FormatPairedRatio(*r), "x1.43");
  EXPECT_EQ(FormatPairedShare(*PairRounds({42}, {100})), "42%");
}

TEST(PairRounds, SkipsRoundsWithNaOrAZeroBaseline) {
  std::optional<PairedRatio> r = PairRounds({std::nullopt, 120, 130, 90, 50}, {100, 100, 0, 100});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rounds, 2);   // 1.2 and 0.9
  EXPECT_EQ(r->skipped, 3);  // n/a, a zero baseline, and a round the baseline lacks
  EXPECT_DOUBLE_EQ(r->median, 1.05);
  ASSERT_EQ(r->by_round.size(), 5u);
  EXPECT_FALSE(r->by_round[0].has_value());
  EXPECT_DOUBLE_EQ(*r->by_round[1], 1.2);
  EXPECT_FALSE(r->by_round[2].has_value());
  EXPECT_DOUBLE_EQ(*r->by_round[3], 0.9);
  EXPECT_EQ(FormatPairedRatio(*r), "~1 [0.90-1.20]*");
  EXPECT_FALSE(PairRounds({1, 2}, {0, std::nullopt}).has_value());
  EXPECT_FALSE(PairRounds({}, {}).has_value());
}

TEST(FormatPairedShare, PercentWithTheSpread) {
  EXPECT_EQ(FormatPairedShare(*PairRounds({40, 45, 42}, {100, 100, 100})), "42% [40-45]");
}

TEST(PairedRatioLegend, SaysWhatTheNotationMeans) {
  const std::string three = PairedRatioLegend(3, "heap", false);
  EXPECT_NE(three.find("median of the 3 per-round ratios"), std::string::npos) << three;
  EXPECT_NE(three.find("~1 = the spread includes 1"), std::string::npos) << three;
  EXPECT_EQ(three.find('*'), std::string::npos) << three;
  EXPECT_NE(PairedRatioLegend(3, "heap", true).find("* = over fewer rounds"), std::string::npos);
  EXPECT_EQ(PairedRatioLegend(1, "heap", false), "ratios to heap: 1 round: no spread");
}

}  // namespace
}  // namespace reco
