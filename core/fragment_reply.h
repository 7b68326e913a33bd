// The fragments mode's reply: RecommendResponse's wire bytes spliced from the
// catalogue's pre-serialized items (Catalogue::fragment) and the per-request parts
// (core/reply_parts.h), through patterns/spliced_reply.h. No reply message exists.
//
// The bytes are exactly BuildResponse's reply serialized: same items, same scores,
// same order, because both take the items from Catalogue::Picks and the per-request
// parts from reply_parts.h, and the fields are written in field number order:
//   1 request_id                       per request, copied
//   2 items, for each picked item:     tag + length (per request)
//        the item's fields 1-11        the catalogue's fragment (copied or referenced)
//        12 scores                     RankingScores, serialized per request
//   3 metadata                         ResponseMetadata, serialized per request
// (core_tests' FragmentReplyTest and server_fragments_test hold it to that.)
//
// Example:
//   thread_local reco::patterns::SplicedReply reply;
//   reply.Clear();
//   reco::BuildFragmentReply(catalogue, request, &reply);
//   reply.Finish(&byte_buffer);
//
// Thread-safety: reentrant; the scratch messages it serializes through are
// thread_local.
#ifndef ARENA_GRPC_CORE_FRAGMENT_REPLY_H_
#define ARENA_GRPC_CORE_FRAGMENT_REPLY_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "core/catalogue.h"
#include "patterns/spliced_reply.h"
#include "proto/reco.pb.h"

namespace reco {

// Appends the reply to `request` to *reply (which should be Clear()ed).
void BuildFragmentReply(const Catalogue& catalogue, const v1::RecommendRequest& request,
                        patterns::SplicedReply* reply);

// As BuildResponseUnlessStopped (response_builder.h): asks `stop_requested` before the
// first item and every `check_every` items (0 counts as 1); false means stopped, and
// the reply is partial.
bool BuildFragmentReplyUnlessStopped(const Catalogue& catalogue, const v1::RecommendRequest& request,
                                     patterns::SplicedReply* reply, absl::FunctionRef<bool()> stop_requested,
                                     uint32_t check_every);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_FRAGMENT_REPLY_H_
