// See fragment_reply.h.
#include "core/fragment_reply.h"

#include <memory>

#include "core/reply_parts.h"
#include "core/scores_wire.h"
#include "patterns/sized_reply.h"

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

// Each picked item's score values, computed once while sizing and read again while
// writing. Kept for the thread's life at the largest reply's size: a thread
// alternating large and small replies must not allocate per reply.
// new[] of a trivial type leaves the values uninitialized: the sizing pass fills
// every one it reads.
class ScoresScratch {
 public:
  ScoreValues* For(uint32_t items) {
    if (items > capacity_) {
      values_.reset(new ScoreValues[items]);
      capacity_ = items;
    }
    return values_.get();
  }

 private:
  std::unique_ptr<ScoreValues[]> values_;
  uint32_t capacity_ = 0;
};

// A reply's items lie scattered through the catalogue's fragments, so a large reply
// that reads most of them waits on memory at each one. Asking for the fragment a few
// items ahead lets those reads overlap the copies (docs/FINDINGS.md, large replies);
// from the CPU's caches it changes nothing measurable. 4 and 8 ahead measured alike.
constexpr uint32_t kPrefetchAhead = 4;
constexpr size_t kCacheLineBytes = 64;
void PrefetchFragment(absl::string_view fragment) {
  for (size_t at = 0; at < fragment.size(); at += kCacheLineBytes) __builtin_prefetch(fragment.data() + at);
}

// An item record's content: the fragment, then its scores as field 12.
size_t ItemLength(absl::string_view fragment, size_t scores_bytes) {
  return fragment.size() + patterns::SizedReply::LengthDelimitedFieldSize(kScoresField, scores_bytes);
}

template <typename StopRequested>
FragmentWrite Write(const Catalogue& catalogue, const v1::RecommendRequest& request, grpc::ByteBuffer* out,
                    StopRequested stop_requested, uint32_t check_every) {
  thread_local ScoresScratch scratch;
  thread_local v1::ResponseMetadata metadata;  // Clear() keeps its strings' capacity

  const v1::TextProfile profile = request.text_profile();
  const ItemPicks picks = catalogue.Picks(request);
  const uint64_t key = ReplyKey(request);
  const absl::string_view model_id = ScoresModelId(profile);
  char id_buffer[kRequestIdBufferBytes];
  const absl::string_view id(id_buffer, WriteRequestId(key, profile, id_buffer));
  metadata.Clear();
  FillMetadata(request, picks.count(), &metadata);

  // Pass 1: every length, and the scores' values, before a byte is written.
  ScoreValues* scores = scratch.For(picks.count());
  size_t size = patterns::SizedReply::LengthDelimitedFieldSize(kRequestIdField, id.size());
  for (uint32_t i = 0; i < picks.count(); ++i) {
    if (i % check_every == 0 && stop_requested()) return FragmentWrite::kStopped;
    const uint32_t index = picks.at(i);
    scores[i] = ComputeScores(key, index);
    const size_t item = ItemLength(catalogue.fragment(profile, index), ScoresWireSize(scores[i], model_id));
    size += patterns::SizedReply::LengthDelimitedFieldSize(kItemsField, item);
  }
  size += patterns::SizedReply::LengthDelimitedFieldSize(kMetadataField, metadata.ByteSizeLong());

  // Pass 2: the bytes, once, where gRPC will read them.
  patterns::SizedReply reply(size);
  reply.WriteStringField(kRequestIdField, id);
  for (uint32_t i = 0; i < picks.count(); ++i) {
    if (i + kPrefetchAhead < picks.count()) {
      PrefetchFragment(catalogue.fragment(profile, picks.at(i + kPrefetchAhead)));
    }
    const absl::string_view fragment = catalogue.fragment(profile, picks.at(i));
    const size_t scores_bytes = ScoresWireSize(scores[i], model_id);
    reply.WriteLengthDelimitedHeader(kItemsField, ItemLength(fragment, scores_bytes));
    reply.WriteBytes(fragment);
    reply.WriteLengthDelimitedHeader(kScoresField, scores_bytes);
    if (uint8_t* at = reply.Take(scores_bytes)) WriteScoresWire(scores[i], model_id, at);
  }
  reply.WriteMessageField(kMetadataField, metadata);
  return reply.Finish(out) ? FragmentWrite::kWritten : FragmentWrite::kWrongSize;
}

}  // namespace

bool WriteFragmentReply(const Catalogue& catalogue, const v1::RecommendRequest& request, grpc::ByteBuffer* out) {
  return Write(
             catalogue, request, out, [] { return false; }, /*check_every=*/1) == FragmentWrite::kWritten;
}

FragmentWrite WriteFragmentReplyUnlessStopped(const Catalogue& catalogue, const v1::RecommendRequest& request,
                                              grpc::ByteBuffer* out, absl::FunctionRef<bool()> stop_requested,
                                              uint32_t check_every) {
  return Write(catalogue, request, out, stop_requested, check_every == 0 ? 1 : check_every);
}

void BuildFragmentReply(const Catalogue& catalogue, const v1::RecommendRequest& request,
                        patterns::SplicedReply* reply) {
  Build(
      catalogue, request, reply, [] { return false; }, /*check_every=*/1);
}

bool BuildFragmentReplyUnlessStopped(const Catalogue& catalogue, const v1::RecommendRequest& request,
                                     patterns::SplicedReply* reply, absl::FunctionRef<bool()> stop_requested,
                                     uint32_t check_every) {
  return Build(catalogue, request, reply, stop_requested, check_every == 0 ? 1 : check_every);
}

}  // namespace reco
