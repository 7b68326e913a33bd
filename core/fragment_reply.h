// The fragments mode's reply: RecommendResponse's wire bytes spliced from the
// catalogue's pre-serialized items (Catalogue::fragment) and the per-request parts
// (core/reply_parts.h). No reply message exists. Two ways to write it:
//
//   WriteFragmentReply  (the server's default: every item copied) sizes the reply
//                       first, then writes it ONCE into one exact-size gRPC slice
//                       (patterns/sized_reply.h); each item's scores are computed
//                       once and encoded by hand (core/scores_wire.h).
//   BuildFragmentReply  appends to a patterns/spliced_reply.h SplicedReply, which
//                       may reference large items instead of copying them
//                       (--fragments_copy_below_bytes); Finish() then copies the
//                       per-request bytes into a slice.
//
// The bytes are exactly BuildResponse's reply serialized: same items, same scores,
// same order, because both take the items from Catalogue::Picks and the per-request
// parts from reply_parts.h, and the fields are written in field number order:
//   1 request_id                       per request
//   2 items, for each picked item:     tag + length (per request)
//        the item's fields 1-11        the catalogue's fragment
//        12 scores                     RankingScores' bytes, per request
//   3 metadata                         ResponseMetadata, serialized per request
// (core_tests' FragmentReplyTest and server_fragments_test hold it to that.)
//
// Example:
//   grpc::ByteBuffer byte_buffer;
//   reco::WriteFragmentReply(catalogue, request, &byte_buffer);
//
// Thread-safety: reentrant; the scratch it works in (the metadata message, the
// picked items' score values) is thread_local.
#ifndef ARENA_GRPC_CORE_FRAGMENT_REPLY_H_
#define ARENA_GRPC_CORE_FRAGMENT_REPLY_H_

#include <cstdint>

#include <grpcpp/support/byte_buffer.h>

#include "absl/functional/function_ref.h"
#include "core/catalogue.h"
#include "patterns/spliced_reply.h"
#include "proto/reco.pb.h"

namespace reco {

// What WriteFragmentReplyUnlessStopped did; only kWritten put a reply in *out.
enum class FragmentWrite {
  kWritten,
  kStopped,    // stop_requested said yes: nothing was allocated or written
  kWrongSize,  // the sizing pass and the writing pass disagreed: a bug, no reply
};

// Replaces *out with the reply to `request`: one slice of exactly its size.
// Allocates that slice and gRPC's byte buffer (plus, once per thread, the score
// values' scratch: kept for the thread's life, sizeof(ScoreValues) per item of the
// largest reply it wrote). Returns false on kWrongSize.
bool WriteFragmentReply(const Catalogue& catalogue, const v1::RecommendRequest& request, grpc::ByteBuffer* out);

// As WriteFragmentReply, asking `stop_requested` before the first item and every
// `check_every` items (0 counts as 1) while sizing -- before the slice exists.
FragmentWrite WriteFragmentReplyUnlessStopped(const Catalogue& catalogue, const v1::RecommendRequest& request,
                                              grpc::ByteBuffer* out, absl::FunctionRef<bool()> stop_requested,
                                              uint32_t check_every);

// Appends the reply to `request` to *reply (which should be Clear()ed).
void BuildFragmentReply(const Catalogue& catalogue, const v1::RecommendRequest& request, patterns::SplicedReply* reply);

// As BuildResponseUnlessStopped (response_builder.h): asks `stop_requested` before the
// first item and every `check_every` items (0 counts as 1); false means stopped, and
// the reply is partial.
bool BuildFragmentReplyUnlessStopped(const Catalogue& catalogue, const v1::RecommendRequest& request,
                                     patterns::SplicedReply* reply, absl::FunctionRef<bool()> stop_requested,
                                     uint32_t check_every);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_FRAGMENT_REPLY_H_
