// See reply_parts.h.
#include "core/reply_parts.h"

#include <cstdio>
#include <iterator>

#include "core/item_generator.h"
#include "core/request.h"
#include "core/splitmix.h"

namespace reco {

uint64_t ReplyKey(const v1::RecommendRequest& request) {
  return Mix64(Fnv1a(request.user_id()) ^ (request.seed() * 0x9e3779b97f4a7c15ULL) ^
               (uint64_t{EffectiveItemCount(request)} << 32) ^ static_cast<uint64_t>(request.text_profile()));
}

size_t WriteRequestId(uint64_t key, v1::TextProfile profile, char (&buf)[kRequestIdBufferBytes]) {
  if (profile == v1::TEXT_PROFILE_COMPACT) return WriteCode('r', key, 12, buf);
  return static_cast<size_t>(std::snprintf(buf, sizeof buf, "req-%016llx", static_cast<unsigned long long>(key)));
}

ScoreValues ComputeScores(uint64_t key, uint32_t catalogue_index) {
  SplitMix64 rng(key ^ Mix64(catalogue_index + 1));
  ScoreValues v;
  v.relevance = rng.Unit();
  v.personalization = rng.Unit();
  v.freshness = rng.Unit();
  for (float& f : v.features) f = rng.Unit() * 2.0f - 1.0f;
  return v;
}

absl::string_view ScoresModelId(v1::TextProfile profile) {
  return profile == v1::TEXT_PROFILE_COMPACT ? "rk3.2" : "ranker-v3.2-2026-11";
}

// mutable_x()->assign() rather than set_x("..."): protobuf 3.21's set_x(const char*)
// builds a temporary std::string first, a second allocation for text over 15 bytes.
void FillScores(uint64_t key, uint32_t catalogue_index, v1::TextProfile profile, v1::RankingScores* scores) {
  const ScoreValues v = ComputeScores(key, catalogue_index);
  scores->set_relevance(v.relevance);
  scores->set_personalization(v.personalization);
  scores->set_freshness(v.freshness);
  scores->mutable_features()->Add(std::begin(v.features), std::end(v.features));
  const absl::string_view model_id = ScoresModelId(profile);
  scores->mutable_model_id()->assign(model_id.data(), model_id.size());
}

void FillMetadata(const v1::RecommendRequest& request, uint32_t items, v1::ResponseMetadata* metadata) {
  if (request.text_profile() == v1::TEXT_PROFILE_COMPACT) {
    metadata->mutable_model_version()->assign("rk3.2");
    metadata->mutable_experiment_bucket()->assign("b07");
  } else {
    metadata->mutable_model_version()->assign("ranker-v3.2-2026-11-candidate-gen");
    metadata->mutable_experiment_bucket()->assign("exp-arena-comparison/control");
  }
  metadata->set_candidates_considered(items * 25);
  metadata->set_generated_at_unix_ms(1767225600000LL + static_cast<int64_t>(request.seed() % 1000000000ULL));
}

}  // namespace reco
