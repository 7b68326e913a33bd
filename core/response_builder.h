// ResponseBuilder: fills a reco.v1.RecommendResponse for a request, deterministically,
// the way a recommendation handler does: it picks the reply's items in the catalogue
// (core/catalogue.h), copies each one's static data into the reply with CopyFrom, and
// computes the per-request parts -- ranking scores per item, request id, metadata
// (core/reply_parts.h). On an arena it may instead alias the catalogue's sub-messages
// (ItemData::kAliased, below).
//
// The same (catalogue, request) always gives the same message (and the same
// serialized bytes), wherever the response lives: on the heap, reused, or on an
// Arena. The builder is the hot path every memory mode shares. What it allocates is
// the copy: a message per sub-message (heap) and a buffer per string over 15 bytes
// (every mode: protobuf 3.21 keeps those on the heap even on an Arena).
//
// Example:
//   auto catalogue = reco::Catalogue::Shared({});
//   reco::v1::RecommendRequest req;
//   req.set_item_count(2);
//   reco::v1::RecommendResponse resp;
//   reco::BuildResponse(*catalogue, req, &resp);   // resp.items_size() == 2
//
// Validation is the caller's job (ValidateRequest, core/request.h, which this header
// includes: the request's rules are the builder's input contract); BuildResponse
// trusts its input. A reply holds min(EffectiveItemCount, catalogue size) items.
// Thread-safety: BuildResponse is a pure function of its arguments.
#ifndef ARENA_GRPC_CORE_RESPONSE_BUILDER_H_
#define ARENA_GRPC_CORE_RESPONSE_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "core/catalogue.h"
#include "core/request.h"
#include "proto/reco.pb.h"

namespace reco {

// Strings of at most this many bytes fit libstdc++'s small-string buffer, so they
// need no allocation of their own; longer ones do, even on an Arena (protobuf 3.21).
inline constexpr size_t kSmallStringBytes = 15;

// How a reply item takes the catalogue item's static data.
//   kCopied   CopyFrom: the reply owns every byte of it (every memory mode).
//   kAliased  reco_server's arena_alias: the item's own fields (ids, text, tags,
//             categories) copied; its Price, Image, Rating, Seller and Shipping ARE the
//             catalogue's objects, attached by patterns/arena_alias.h without a copy.
//             Only on an arena; a response not on one is refused by the pattern and
//             copied instead (the same bytes either way). The catalogue must outlive the
//             response's serialization, and nobody may write those five fields of the
//             response: they write into the catalogue.
enum class ItemData { kCopied, kAliased };

// Fills *response (which must be empty: new, Clear()ed or freshly on an arena).
void BuildResponse(const Catalogue& catalogue, const v1::RecommendRequest& request, v1::RecommendResponse* response,
                   ItemData item_data = ItemData::kCopied);

// BuildResponse for a caller who may stop waiting: asks `stop_requested` before the
// first item and then every `check_every` items (0 counts as 1). Returns true with the
// same response BuildResponse gives, or false as soon as `stop_requested` says yes --
// the response is then partial and must not be sent. reco_server passes "cancelled or
// past the deadline" (server/recommender_service.cc); reco_bench's BM_BuildChecked
// measures what the checks cost.
bool BuildResponseUnlessStopped(const Catalogue& catalogue, const v1::RecommendRequest& request,
                                v1::RecommendResponse* response, absl::FunctionRef<bool()> stop_requested,
                                uint32_t check_every, ItemData item_data = ItemData::kCopied);

// BuildResponse's message, serialized: the bytes a client receives for `request`.
// For what holds those bytes ready (reco_server's ceiling mode) and for checking a
// reply against them (tests, benchmarks, fuzzers).
std::string BuildResponseBytes(const Catalogue& catalogue, const v1::RecommendRequest& request);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_RESPONSE_BUILDER_H_
