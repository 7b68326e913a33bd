// The request's rules: what a RecommendRequest may ask for and what it means -- the
// item count limits, item_count 0 read as the default, validation, and the text
// profiles' names. Every layer that reads a request reads it through these: the
// catalogue picks EffectiveItemCount items, the server validates with ValidateRequest,
// the load client and the tools name profiles with TextProfileName/ParseTextProfile.
//
// This file sits at the bottom of core/ (tests/layering_test.py): it includes nothing
// of the project but proto/, so the catalogue, the reply parts and the builder can all
// use it without including each other.
//
// Example:
//   reco::v1::RecommendRequest request;                     // item_count 0
//   reco::EffectiveItemCount(request);                      // kDefaultItemCount
//   request.set_item_count(reco::kMaxItemCount + 1);
//   reco::ValidateRequest(request).code();                  // kInvalidArgument
//   reco::v1::TextProfile profile;
//   reco::ParseTextProfile("compact", &profile);            // true: TEXT_PROFILE_COMPACT
//
// Thread-safety: pure functions of their arguments.
#ifndef ARENA_GRPC_CORE_REQUEST_H_
#define ARENA_GRPC_CORE_REQUEST_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/reco.pb.h"

namespace reco {

// item_count 0 asks for this many items.
inline constexpr uint32_t kDefaultItemCount = 200;
// The largest item_count the service accepts (a 10,000-item realistic response is
// over 4 MiB serialized: hostile_limits_test, ItemCountAtTheLimitIsServedInFull).
inline constexpr uint32_t kMaxItemCount = 10000;

// item_count with 0 replaced by the default.
uint32_t EffectiveItemCount(const v1::RecommendRequest& request);

// OK, or INVALID_ARGUMENT with a message that names the field and its limit.
absl::Status ValidateRequest(const v1::RecommendRequest& request);

// "realistic" / "compact" <-> the enum. ParseTextProfile returns false on anything else.
absl::string_view TextProfileName(v1::TextProfile profile);
bool ParseTextProfile(absl::string_view name, v1::TextProfile* profile);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_REQUEST_H_
