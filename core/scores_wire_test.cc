// The scores written by hand are RankingScores' serialized bytes: for the values
// FillScores gives, and for zeros the serializer leaves out (-0.0 it keeps).
#include "core/scores_wire.h"

#include <string>

#include "gtest/gtest.h"

namespace reco {
namespace {

std::string ByHand(const ScoreValues& v, absl::string_view model_id) {
  std::string out(ScoresWireSize(v, model_id), '\0');
  uint8_t* begin = reinterpret_cast<uint8_t*>(out.data());
  EXPECT_EQ(WriteScoresWire(v, model_id, begin) - begin, static_cast<ptrdiff_t>(out.size())) << "size and writer agree";
  return out;
}

std::string Serialized(const ScoreValues& v, absl::string_view model_id) {
  v1::RankingScores s;
  s.set_relevance(v.relevance);
  s.set_personalization(v.personalization);
  s.set_freshness(v.freshness);
  for (float f : v.features) s.add_features(f);
  s.set_model_id(std::string(model_id));
  return s.SerializeAsString();
}

TEST(ScoresWireTest, IsFillScoresSerialized) {
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    for (uint32_t index : {0u, 1u, 999u}) {
      v1::RankingScores filled;
      FillScores(/*key=*/42, index, profile, &filled);
      const std::string by_hand = ByHand(ComputeScores(42, index), ScoresModelId(profile));
      EXPECT_EQ(by_hand, filled.SerializeAsString()) << index;
      EXPECT_LE(by_hand.size(), kMaxScoresWireBytes);
    }
  }
}

TEST(ScoresWireTest, ZerosAreLeftOutAsTheSerializerDoes) {
  ScoreValues v = ComputeScores(7, 3);
  for (float zero : {0.0f, -0.0f}) {
    v.relevance = zero;
    v.freshness = zero;
    v.features[2] = zero;  // packed: always written
    EXPECT_EQ(ByHand(v, "m"), Serialized(v, "m")) << zero;
    EXPECT_EQ(ByHand(v, ""), Serialized(v, "")) << "no model id";
  }
}

}  // namespace
}  // namespace reco
