// RankingScores' wire bytes written by hand from ScoreValues (core/reply_parts.h):
// the fragments mode sizes and writes each item's scores without a message.
//
// The bytes are what RankingScores::SerializeToString gives for the message
// FillScores fills: fields 1-3 (float, left out when their bits are all zero, as
// protobuf 3.21's proto3 code does -- so -0.0 is written), 4 (packed float), 5
// (string, left out when empty), in field number order. core_tests'
// ScoresWireTest holds it to that, zeros included.
//
// Example:
//   const reco::ScoreValues v = reco::ComputeScores(key, index);
//   const absl::string_view model_id = reco::ScoresModelId(profile);
//   uint8_t buf[reco::kMaxScoresWireBytes];
//   uint8_t* end = reco::WriteScoresWire(v, model_id, buf);  // end - buf == ScoresWireSize(v, model_id)
//
// Thread-safety: pure functions of their arguments.
#ifndef ARENA_GRPC_CORE_SCORES_WIRE_H_
#define ARENA_GRPC_CORE_SCORES_WIRE_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/reply_parts.h"

namespace reco {

// The longest encoding with a model id under 128 bytes: three tagged floats, the
// packed features' tag, length and bytes, the model id's tag and length.
inline constexpr size_t kMaxScoresWireBytes = 3 * 5 + 2 + 4 * ScoreValues::kFeatures + 2 + 127;

size_t ScoresWireSize(const ScoreValues& values, absl::string_view model_id);
// Writes ScoresWireSize(values, model_id) bytes at `target`; returns their end.
uint8_t* WriteScoresWire(const ScoreValues& values, absl::string_view model_id, uint8_t* target);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_SCORES_WIRE_H_
