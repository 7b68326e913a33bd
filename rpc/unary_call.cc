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
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call = stub.PrepareCall(&context, method, &cq);
  // A write and a read are in flight at once, so that a server which reads a
  // message only after answering the last one does not wait on this client.
  int start_tag, write_tag, read_tag;
  void* tag = nullptr;
  bool ok = false;
  StreamReply reply;
  call->StartCall(&start_tag);
  if (cq.Next(&tag, &ok) && ok) {
    size_t written = 0;
    bool writing = false, reading = true, half_closed = false;
    auto write_next = [&] {
      if (written < requests.size()) {
        const bool last = written + 1 == requests.size();
        call->Write(requests[written++], last ? grpc::WriteOptions().set_last_message() : grpc::WriteOptions(),
                    &write_tag);
        writing = true;
      } else if (requests.empty() && !half_closed) {
        call->WritesDone(&write_tag);
        half_closed = writing = true;
      }
    };
    grpc::ByteBuffer message;
    write_next();
    call->Read(&message, &read_tag);
    while ((writing || reading) && cq.Next(&tag, &ok)) {
      if (tag == &write_tag) {
        writing = false;
        if (ok) write_next();
      } else if (ok) {
        if (reply.messages++ == 0) reply.message = message;
        call->Read(&message, &read_tag);
      } else {
        reading = false;
      }
    }
  }
  call->Finish(&reply.status, &start_tag);
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
