// The reply-memory estimate against what the ledger measures on the real builder.
#include "core/reply_memory.h"

#include <algorithm>

#include "core/allocation_ledger.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

// What one reply really takes: the most any memory mode allocates to build it, plus
// the serialized bytes. (Not the fragments row: its build bytes count the scratch's
// regrowth over 1 MiB, freed as it goes, while the reply it holds is one copy of the
// serialized bytes -- less than any message mode.)
uint64_t MeasuredReplyBytes(const v1::RecommendRequest& request) {
  LedgerOptions options;
  options.warmup_responses = 1;
  options.cycles = 1;
  options.fragments = false;
  Ledger ledger = MeasureLedger(request, options);
  double build = 0;
  for (const ModeLedger& m : ledger.modes) build = std::max(build, m.build.bytes);
  return static_cast<uint64_t>(build) + ledger.serialized_bytes;
}

TEST(ReplyMemoryTest, EstimateCoversTheMeasuredReplyWithinTwiceItsSize) {
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    for (uint32_t items : {1u, 10u, 200u, 2000u}) {
      v1::RecommendRequest request = LedgerRequest(items, profile);
      const uint64_t measured = MeasuredReplyBytes(request);
      const uint64_t estimate = EstimateReplyBytes(request);
      EXPECT_GE(estimate, measured) << items << " items, profile " << profile;
      EXPECT_LE(estimate, 2 * measured + 4096) << items << " items, profile " << profile;
    }
  }
}

TEST(ReplyMemoryTest, ZeroItemsMeansTheDefaultCount) {
  v1::RecommendRequest zero;
  v1::RecommendRequest two_hundred;
  two_hundred.set_item_count(200);
  EXPECT_EQ(EstimateReplyBytes(zero), EstimateReplyBytes(two_hundred));
}

}  // namespace
}  // namespace reco
