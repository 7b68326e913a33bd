// The bytes a grpc::ByteBuffer holds: patterns/byte_buffer_bytes.h, under the names
// the rest of the house uses (reco::ByteBufferBytes, reco::ByteBufferHolds).
//
// Why here too: rpc/ may include core/ but not patterns/ (tests/layering_test.py), and
// tests, benchmarks, fuzzers, the load client's verifier and rpc/unary_call.cc all
// read replies this way; the walk itself is written once, in patterns/ (whose raw
// handlers' tests need it and which must stand alone).
#ifndef ARENA_GRPC_CORE_BYTE_BUFFER_BYTES_H_
#define ARENA_GRPC_CORE_BYTE_BUFFER_BYTES_H_

#include "patterns/byte_buffer_bytes.h"

namespace reco {

using patterns::ByteBufferBytes;
using patterns::ByteBufferHolds;

}  // namespace reco

#endif  // ARENA_GRPC_CORE_BYTE_BUFFER_BYTES_H_
