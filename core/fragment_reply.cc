// See fragment_reply.h.
#include "core/fragment_reply.h"

#include "core/reply_parts.h"

namespace reco {
namespace {

// RecommendResponse and Item field numbers (proto/reco.proto). The handler must know
// them: that is the price of splicing (docs/patterns.md).
constexpr uint32_t kRequestIdField = v1::RecommendResponse::kRequestIdFieldNumber;
constexpr uint32_t kItemsField = v1::RecommendResponse::kItemsFieldNumber;
constexpr uint32_t kMetadataField = v1::RecommendResponse::kMetadataFieldNumber;
constexpr uint32_t kScoresField = v1::Item::kScoresFieldNumber;
static_assert(kScoresField == 12, "scores must stay Item's last field: the fragment holds fields 1-11");

template <typename StopRequested>
bool Build(const Catalogue& catalogue, const v1::RecommendRequest& request, patterns::SplicedReply* reply,
           StopRequested stop_requested, uint32_t check_every) {
  // Reused per thread: Clear() keeps the features' and strings' capacity, so after
  // the first reply on a thread these cost no allocation.
  thread_local v1::RankingScores scores;
  thread_local v1::ResponseMetadata metadata;

  const v1::TextProfile profile = request.text_profile();
  const ItemPicks picks = catalogue.Picks(request);
  const uint64_t key = ReplyKey(request);

  char id[kRequestIdBufferBytes];
  reply->AppendStringField(kRequestIdField, absl::string_view(id, WriteRequestId(key, profile, id)));
  for (uint32_t i = 0; i < picks.count(); ++i) {
    if (i % check_every == 0 && stop_requested()) return false;
    const uint32_t index = picks.at(i);
    const absl::string_view fragment = catalogue.fragment(profile, index);
    scores.Clear();
    FillScores(key, index, profile, &scores);
    const size_t scores_field = patterns::SplicedReply::LengthDelimitedFieldSize(kScoresField, scores.ByteSizeLong());
    reply->AppendLengthDelimitedHeader(kItemsField, fragment.size() + scores_field);
    reply->AppendFragment(fragment);
    reply->AppendMessageField(kScoresField, scores);
  }
  metadata.Clear();
  FillMetadata(request, picks.count(), &metadata);
  reply->AppendMessageField(kMetadataField, metadata);
  return true;
}

}  // namespace

void BuildFragmentReply(const Catalogue& catalogue, const v1::RecommendRequest& request,
                        patterns::SplicedReply* reply) {
  Build(catalogue, request, reply, [] { return false; }, /*check_every=*/1);
}

bool BuildFragmentReplyUnlessStopped(const Catalogue& catalogue, const v1::RecommendRequest& request,
                                     patterns::SplicedReply* reply, absl::FunctionRef<bool()> stop_requested,
                                     uint32_t check_every) {
  return Build(catalogue, request, reply, stop_requested, check_every == 0 ? 1 : check_every);
}

}  // namespace reco
