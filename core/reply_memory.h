// EstimateReplyBytes: how much memory one Recommend reply holds while it is in flight,
// known before it is built -- what the server reserves from its reply budget.
//
// The estimate is the built message (the most any memory mode allocates to build it:
// the default-options arena, whose blocks double past what it uses) plus its
// serialized bytes (gRPC keeps them until the client has read them). It is a linear
// function of the item count, per text profile, with constants measured by
// alloc_ledger on this builder (see reply_memory.cc); reply_memory_test.cc keeps it
// honest: never below what the ledger measures, never above twice that plus 4 KiB.
// It does not count gRPC's per-call memory or malloc's rounding.
//
// Example:
//   reco::v1::RecommendRequest r;   // 200 realistic items
//   reco::EstimateReplyBytes(r)     // 4 KiB + 200 x 2,400 = 484,096
//
// Thread-safety: a pure function. The request must pass ValidateRequest.
#ifndef ARENA_GRPC_CORE_REPLY_MEMORY_H_
#define ARENA_GRPC_CORE_REPLY_MEMORY_H_

#include <cstdint>

#include "proto/reco.pb.h"

namespace reco {

uint64_t EstimateReplyBytes(const v1::RecommendRequest& request);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_REPLY_MEMORY_H_
