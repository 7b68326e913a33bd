// See unary_call.h.
#include "rpc/unary_call.h"

#include <grpcpp/client_context.h>
#include <grpcpp/completion_queue.h>

#include "core/byte_buffer_bytes.h"

namespace reco {

std::string UnaryReply::Bytes() const { return ByteBufferBytes(message); }

UnaryReply BlockingUnaryCall(grpc::GenericStub& stub, const std::string& method, const grpc::ByteBuffer& request,
                             absl::Time deadline, const RequestMetadata& metadata) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  for (const auto& [key, value] : metadata) context.AddMetadata(key, value);
  grpc::CompletionQueue cq;
  auto call = stub.PrepareUnaryCall(&context, method, request, &cq);
  call->StartCall();
  UnaryReply reply;
  call->Finish(&reply.message, &reply.status, nullptr);
  void* tag = nullptr;
  bool ok = false;
  cq.Next(&tag, &ok);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return reply;
}

StreamReply BlockingStreamingCall(grpc::GenericStub& stub, const std::string& method,
                                  const std::vector<grpc::ByteBuffer>& requests, absl::Time deadline,
                                  const RequestMetadata& metadata) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  for (const auto& [key, value] : metadata) context.AddMetadata(key, value);
  grpc::CompletionQueue cq;
  void* tag = nullptr;
  bool ok = false;
  auto step = [&] { return cq.Next(&tag, &ok) && ok; };  // one operation at a time
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call = stub.PrepareCall(&context, method, &cq);
  StreamReply reply;
  call->StartCall(nullptr);
  bool sent = step();
  for (size_t i = 0; sent && i < requests.size(); ++i) {
    call->Write(requests[i], i + 1 == requests.size() ? grpc::WriteOptions().set_last_message() : grpc::WriteOptions(),
                nullptr);
    sent = step();
  }
  if (sent && requests.empty()) {
    call->WritesDone(nullptr);
    sent = step();
  }
  if (sent) {
    grpc::ByteBuffer message;
    for (call->Read(&message, nullptr); step(); call->Read(&message, nullptr)) {
      if (reply.messages++ == 0) reply.message = message;
    }
  }
  call->Finish(&reply.status, nullptr);
  cq.Next(&tag, &ok);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  if (!reply.status.ok()) reply.message.Clear();
  return reply;
}

UnaryReply BlockingUnaryCall(grpc::GenericStub& stub, const std::string& method, const std::string& request,
                             absl::Time deadline, const RequestMetadata& metadata) {
  grpc::Slice slice(request);
  return BlockingUnaryCall(stub, method, grpc::ByteBuffer(&slice, 1), deadline, metadata);
}

}  // namespace reco
