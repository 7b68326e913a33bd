// SPDX-License-Identifier: Apache-2.0
// ParseRawRequest: a raw (ByteBuffer) handler's request, parsed or refused.
//
// A handler that takes the request as bytes (Service::WithRawCallbackMethod_X, or an
// async raw method) parses it itself. The trap: when the stream ends before a whole
// message arrived (a truncated gRPC frame, or no DATA frame at all), gRPC 1.51 still
// runs the handler, with a ByteBuffer that is not valid. Read naively, it yields no
// bytes, and no bytes parse as the all-defaults request: the handler serves a reply
// nobody asked for. gRPC's own parser (every non-raw method) checks the buffer's status
// and refuses; this does the same for a raw one, and also refuses bytes that are not
// a whole message of the request's type. An empty message (a 0-byte frame) is a valid
// request, all defaults, and is parsed.
//
// Example:
//   v1::FeedRequest request;
//   grpc::Status status = ParseRawRequest(*request_bytes, &request);
//   if (!status.ok()) { reactor->Finish(status); return reactor; }   // INVALID_ARGUMENT
//
// Thread-safety: reads `bytes` (the caller keeps it alive); writes only `request`.
#ifndef ARENA_GRPC_PATTERNS_RAW_REQUEST_H_
#define ARENA_GRPC_PATTERNS_RAW_REQUEST_H_

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include "google/protobuf/message_lite.h"

namespace reco::patterns {

// OK with `request` parsed; INVALID_ARGUMENT, saying which, when no whole message
// arrived or the bytes are not a `request->GetTypeName()`.
grpc::Status ParseRawRequest(const grpc::ByteBuffer& bytes, google::protobuf::MessageLite* request);

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_RAW_REQUEST_H_
