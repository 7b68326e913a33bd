// SPDX-License-Identifier: Apache-2.0
// CallRawUnary: one unary call whose request goes out as raw bytes -- or not at all --
// the way a hostile or broken client sends it, for tests of raw handlers.
//
// Sending nothing (request_bytes nullopt) half-closes the stream before any message:
// what a stream cut before a whole gRPC frame also looks like to the server's handler
// (gRPC 1.51 still runs a raw handler then; raw_request.h says why that matters).
//
// Example:
//   std::string reply;
//   grpc::Status status = CallRawUnary(channel.get(), "/feed.v1.Feed/GetFeed", std::nullopt, &reply);
//   // status INVALID_ARGUMENT from a handler that uses ParseRawRequest; reply empty
//
// Thread-safety: one call per invocation; the channel may be shared.
#ifndef ARENA_GRPC_PATTERNS_TESTING_RAW_CALL_H_
#define ARENA_GRPC_PATTERNS_TESTING_RAW_CALL_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "../byte_buffer_bytes.h"
#include "gtest/gtest.h"

namespace reco::patterns::testing {

// Calls `method` ("/package.Service/Method") sending `request_bytes` as they are
// (nothing when nullopt) and returns the call's status; the reply's bytes, if a reply
// came, go to *reply. Bounded by a 30 s deadline.
inline grpc::Status CallRawUnary(grpc::Channel* channel, const std::string& method,
                                 const std::optional<std::string>& request_bytes, std::string* reply) {
  grpc::GenericStub stub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));  // a bound on hangs
  grpc::CompletionQueue cq;
  auto await = [&cq] {
    void* tag = nullptr;
    bool ok = false;
    EXPECT_TRUE(cq.Next(&tag, &ok));
    return ok;
  };
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call = stub.PrepareCall(&context, method, &cq);
  call->StartCall(nullptr);
  await();
  if (request_bytes.has_value()) {
    grpc::Slice slice(*request_bytes);
    call->Write(grpc::ByteBuffer(&slice, 1), nullptr);
    await();
  }
  call->WritesDone(nullptr);
  await();
  grpc::ByteBuffer buffer;
  call->Read(&buffer, nullptr);
  if (await()) *reply = ByteBufferBytes(buffer);
  grpc::Status status;
  call->Finish(&status, nullptr);
  await();
  return status;
}

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_RAW_CALL_H_
