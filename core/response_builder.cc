// The deterministic response generator. See response_builder.h.
#include "core/response_builder.h"

#include "absl/strings/str_cat.h"
#include "core/reply_parts.h"

namespace reco {

using v1::Item;
using v1::RecommendRequest;
using v1::RecommendResponse;

uint32_t EffectiveItemCount(const RecommendRequest& request) {
  return request.item_count() == 0 ? kDefaultItemCount : request.item_count();
}

absl::Status ValidateRequest(const RecommendRequest& request) {
  if (request.item_count() > kMaxItemCount) {
    return absl::InvalidArgumentError(absl::StrCat("item_count is ", request.item_count(),
                                                   "; the limit is ", kMaxItemCount,
                                                   " (0 means the default, ", kDefaultItemCount, ")"));
  }
  if (!v1::TextProfile_IsValid(request.text_profile())) {
    return absl::InvalidArgumentError(
        absl::StrCat("text_profile ", static_cast<int>(request.text_profile()),
                     " is not known; use TEXT_PROFILE_REALISTIC (0) or TEXT_PROFILE_COMPACT (1)"));
  }
  return absl::OkStatus();
}

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
absl::string_view TextProfileName(v1::TextProfile profile) {
  switch (profile) {
    case v1::TEXT_PROFILE_REALISTIC: return "realistic";
    case v1::TEXT_PROFILE_COMPACT: return "compact";
    default: return "unknown";
  }
}

bool ParseTextProfile(absl::string_view name, v1::TextProfile* profile) {
  if (name == "realistic") {
    *profile = v1::TEXT_PROFILE_REALISTIC;
  } else if (name == "compact") {
    *profile = v1::TEXT_PROFILE_COMPACT;
  } else {
    return false;
  }
  return true;
}

}  // namespace reco
