// The per-request parts of a reply: what a recommendation handler computes for each
// request, as opposed to the item data it copies from the catalogue.
//
//   ReplyKey      a request's key: user id, seed, item count and profile mixed; every
//                 per-request value derives from it
//   request_id    "req-<16 hex>" (realistic) or "r<12 hex>" (compact)
//   RankingScores per picked item: relevance, personalization, freshness and eight
//                 model features, from (key, catalogue index); model_id per profile
//   metadata      model version, experiment bucket, candidates considered, time stamp
//
// BuildResponse (response_builder.h) fills these into messages; the fragments mode
// (core/fragment_reply.h) writes the same values between pre-serialized item bytes.
// Both call these functions, so the two replies cannot drift apart.
//
// Example:
//   const uint64_t key = reco::ReplyKey(request);
//   reco::FillScores(key, catalogue_index, request.text_profile(), item->mutable_scores());
//
// Thread-safety: pure functions of their arguments.
#ifndef ARENA_GRPC_CORE_REPLY_PARTS_H_
#define ARENA_GRPC_CORE_REPLY_PARTS_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "proto/reco.pb.h"

namespace reco {

uint64_t ReplyKey(const v1::RecommendRequest& request);

// The request id for `key`, written into buf; returns its length (at most 20).
inline constexpr size_t kRequestIdBufferBytes = 32;
size_t WriteRequestId(uint64_t key, v1::TextProfile profile, char (&buf)[kRequestIdBufferBytes]);

// One item's RankingScores as plain values: what FillScores puts in the message and
// the fragments mode encodes by hand (core/scores_wire.h), without a message.
struct ScoreValues {
  static constexpr int kFeatures = 8;  // what a small ranking model reads per candidate
  float relevance;
  float personalization;
  float freshness;
  float features[kFeatures];
};
ScoreValues ComputeScores(uint64_t key, uint32_t catalogue_index);
// RankingScores.model_id for replies in `profile`.
absl::string_view ScoresModelId(v1::TextProfile profile);

// Fills an empty (new or Clear()ed) RankingScores for the item at `catalogue_index`.
void FillScores(uint64_t key, uint32_t catalogue_index, v1::TextProfile profile, v1::RankingScores* scores);

// Fills an empty ResponseMetadata for a reply of `items` items.
void FillMetadata(const v1::RecommendRequest& request, uint32_t items, v1::ResponseMetadata* metadata);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_REPLY_PARTS_H_
