// The bytes a grpc::ByteBuffer holds, read out of its slices: as one string, or
// compared with an expected string without making one.
//
// A ByteBuffer is a list of slices (a reply spliced from fragments has many; one a
// server serialized usually has one), so reading its bytes is a Dump() of the slices
// and a walk over them. Tests, benchmarks, fuzzers, the load client's verifier and
// rpc/unary_call.cc all read replies this way; this is that walk, written once.
//
// Why it lives in core/: every room that reads a reply may include core/ except rpc/
// and patterns/ (tests/layering_test.py). patterns/ must stay copyable on its own,
// so its tests use this but its pattern files do not; rpc/ is allowed core/ for it and
// links reco_core_code, the code without the counting malloc (rpc/CMakeLists.txt).
// It is on core's ground floor: it includes nothing of the project.
//
// Example:
//   grpc::ByteBuffer reply;                  // as a generic call or SplicedReply filled it
//   std::string bytes = reco::ByteBufferBytes(reply);
//   reco::ByteBufferHolds(reply, bytes);     // true
//
// Thread-safety: as reading the ByteBuffer (const): any thread, while no one changes it.
#ifndef ARENA_GRPC_CORE_BYTE_BUFFER_BYTES_H_
#define ARENA_GRPC_CORE_BYTE_BUFFER_BYTES_H_

#include <string>

#include <grpcpp/support/byte_buffer.h>

#include "absl/strings/string_view.h"

namespace reco {

// Its slices' bytes, in order. Empty when the buffer holds none -- also when it was
// never filled or was Clear()ed (the only case in which gRPC 1.51's Dump fails).
std::string ByteBufferBytes(const grpc::ByteBuffer& buffer);

// Whether the buffer holds exactly `bytes`: lengths first, then slice by slice, with
// no copy of the reply (the load client checks every reply this way). False for a
// buffer never filled.
bool ByteBufferHolds(const grpc::ByteBuffer& buffer, absl::string_view bytes);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_BYTE_BUFFER_BYTES_H_
