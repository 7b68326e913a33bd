// SPDX-License-Identifier: Apache-2.0
// The bytes a grpc::ByteBuffer holds, read out of its slices: as one string, or
// compared with an expected string without making one.
//
// A ByteBuffer is a list of slices (a reply spliced from fragments has many; one gRPC
// serialized usually has one), so reading its bytes is a Dump() of the slices and a
// walk over them. A raw handler's tests, a verifier of replies and a client reading a
// raw reply all need that walk; this is it, written once.
//
// Example:
//   std::string bytes = ByteBufferBytes(reply);          // "" when the buffer is invalid
//   bool same = ByteBufferHolds(reply, expected_bytes);  // no copy made
//
// Thread-safety: reads the buffer; nobody may change it meanwhile.
#ifndef ARENA_GRPC_PATTERNS_BYTE_BUFFER_BYTES_H_
#define ARENA_GRPC_PATTERNS_BYTE_BUFFER_BYTES_H_

#include <string>

#include <grpcpp/support/byte_buffer.h>

#include "absl/strings/string_view.h"

namespace reco::patterns {

// Every byte of `buffer`, in order; empty when the buffer holds none or is invalid.
std::string ByteBufferBytes(const grpc::ByteBuffer& buffer);

// Whether `buffer` holds exactly `bytes`.
bool ByteBufferHolds(const grpc::ByteBuffer& buffer, absl::string_view bytes);

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_BYTE_BUFFER_BYTES_H_
