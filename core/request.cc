// The request's rules. See request.h.
#include "core/request.h"

#include "absl/strings/str_cat.h"

namespace reco {

uint32_t EffectiveItemCount(const v1::RecommendRequest& request) {
  return request.item_count() == 0 ? kDefaultItemCount : request.item_count();
}

absl::Status ValidateRequest(const v1::RecommendRequest& request) {
  if (request.item_count() > kMaxItemCount) {
    return absl::InvalidArgumentError(absl::StrCat("item_count is ", request.item_count(), "; the limit is ",
                                                   kMaxItemCount, " (0 means the default, ", kDefaultItemCount, ")"));
  }
  if (!v1::TextProfile_IsValid(request.text_profile())) {
    return absl::InvalidArgumentError(
        absl::StrCat("text_profile ", static_cast<int>(request.text_profile()),
                     " is not known; use TEXT_PROFILE_REALISTIC (0) or TEXT_PROFILE_COMPACT (1)"));
  }
  return absl::OkStatus();
}

absl::string_view TextProfileName(v1::TextProfile profile) {
  switch (profile) {
    case v1::TEXT_PROFILE_REALISTIC:
      return "realistic";
    case v1::TEXT_PROFILE_COMPACT:
      return "compact";
    default:
      return "unknown";
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
