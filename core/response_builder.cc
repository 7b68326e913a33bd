// The deterministic response generator. See response_builder.h.
#include "core/response_builder.h"

#include "core/reply_parts.h"

namespace reco {

using v1::Item;
using v1::RecommendRequest;
using v1::RecommendResponse;

namespace {

// The one builder: `stop_requested` is asked before the first item and then every
// `check_every` items; when it says yes, the build ends there (returns false).
template <typename StopRequested>
bool Build(const Catalogue& catalogue, const RecommendRequest& request, RecommendResponse* response,
           StopRequested stop_requested, uint32_t check_every) {
  const v1::TextProfile profile = request.text_profile();
  const ItemPicks picks = catalogue.Picks(request);
  const uint64_t key = ReplyKey(request);

  char id[kRequestIdBufferBytes];
  response->mutable_request_id()->assign(id, WriteRequestId(key, profile, id));

  auto* items = response->mutable_items();
  items->Reserve(static_cast<int>(picks.count()));
  for (uint32_t i = 0; i < picks.count(); ++i) {
    if (i % check_every == 0 && stop_requested()) return false;
    const uint32_t index = picks.at(i);
    Item* item = items->Add();
    item->CopyFrom(catalogue.item(profile, index));  // the static data, copied
    FillScores(key, index, profile, item->mutable_scores());
  }
  FillMetadata(request, picks.count(), response->mutable_metadata());
  return true;
}

}  // namespace

void BuildResponse(const Catalogue& catalogue, const RecommendRequest& request, RecommendResponse* response) {
  // A constant "no" that the compiler folds away: the plain build pays nothing.
  Build(catalogue, request, response, [] { return false; }, /*check_every=*/1);
}

bool BuildResponseUnlessStopped(const Catalogue& catalogue, const RecommendRequest& request,
                                RecommendResponse* response, absl::FunctionRef<bool()> stop_requested,
                                uint32_t check_every) {
  return Build(catalogue, request, response, stop_requested, check_every == 0 ? 1 : check_every);
}

std::string BuildResponseBytes(const Catalogue& catalogue, const RecommendRequest& request) {
  RecommendResponse response;
  BuildResponse(catalogue, request, &response);
  return response.SerializeAsString();
}

}  // namespace reco
