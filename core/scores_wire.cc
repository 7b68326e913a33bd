// See scores_wire.h.
#include "core/scores_wire.h"

#include <cstring>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

namespace reco {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

constexpr int kRelevanceField = v1::RankingScores::kRelevanceFieldNumber;
constexpr int kPersonalizationField = v1::RankingScores::kPersonalizationFieldNumber;
constexpr int kFreshnessField = v1::RankingScores::kFreshnessFieldNumber;
constexpr int kFeaturesField = v1::RankingScores::kFeaturesFieldNumber;
constexpr int kModelIdField = v1::RankingScores::kModelIdFieldNumber;
constexpr uint32_t kFeatureBytes = 4 * ScoreValues::kFeatures;  // packed fixed32

// proto3 leaves a float out when its bits are zero (not when it compares equal to
// zero: -0.0 is written), as the generated code does.
bool Written(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits != 0;
}

uint8_t* WriteFloatField(int field_number, float value, uint8_t* target) {
  return Written(value) ? WireFormatLite::WriteFloatToArray(field_number, value, target) : target;
}

}  // namespace

size_t ScoresWireSize(const ScoreValues& values, absl::string_view model_id) {
  constexpr size_t kFloatField = 1 + WireFormatLite::kFloatSize;  // fields 1-3: one-byte tags
  size_t size = kFloatField * (Written(values.relevance) + Written(values.personalization) + Written(values.freshness));
  size += 1 + CodedOutputStream::VarintSize32(kFeatureBytes) + kFeatureBytes;
  if (!model_id.empty()) size += 1 + CodedOutputStream::VarintSize32(model_id.size()) + model_id.size();
  return size;
}

uint8_t* WriteScoresWire(const ScoreValues& values, absl::string_view model_id, uint8_t* target) {
  target = WriteFloatField(kRelevanceField, values.relevance, target);
  target = WriteFloatField(kPersonalizationField, values.personalization, target);
  target = WriteFloatField(kFreshnessField, values.freshness, target);
  target = WireFormatLite::WriteTagToArray(kFeaturesField, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, target);
  target = CodedOutputStream::WriteVarint32ToArray(kFeatureBytes, target);
  for (float f : values.features) target = WireFormatLite::WriteFloatNoTagToArray(f, target);
  if (!model_id.empty()) {
    target = WireFormatLite::WriteTagToArray(kModelIdField, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, target);
    target = CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(model_id.size()), target);
    std::memcpy(target, model_id.data(), model_id.size());
    target += model_id.size();
  }
  return target;
}

}  // namespace reco
