// SPDX-License-Identifier: Apache-2.0
#include "raw_request.h"

#include <string>

#include <grpcpp/support/proto_buffer_reader.h>

namespace reco::patterns {

grpc::Status ParseRawRequest(const grpc::ByteBuffer& bytes, google::protobuf::MessageLite* request) {
  // ProtoBufferReader only reads the buffer; it takes a non-const pointer because
  // gRPC's reader API does.
  grpc::ProtoBufferReader reader(const_cast<grpc::ByteBuffer*>(&bytes));
  if (!reader.status().ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "no request message arrived: the stream ended before a whole message");
  }
  if (!request->ParseFromZeroCopyStream(&reader)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the request is not a " + request->GetTypeName());
  }
  return grpc::Status::OK;
}

}  // namespace reco::patterns
