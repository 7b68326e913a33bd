// See fragments_service.h.
#include "server/fragments_service.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include "core/fragment_reply.h"
#include "patterns/spliced_reply.h"
#include "server/handler_steps.h"

namespace reco {
namespace {

// The request's bytes parsed into *request; INVALID_ARGUMENT when they are not a
// RecommendRequest, or when no request arrived at all.
grpc::Status ParseRequest(const grpc::ByteBuffer& bytes, v1::RecommendRequest* request) {
  // ProtoBufferReader only reads the buffer; it takes a non-const pointer because
  // gRPC's reader API does.
  grpc::ProtoBufferReader reader(const_cast<grpc::ByteBuffer*>(&bytes));
  // A stream that ends before a whole message (a truncated gRPC frame, or no DATA at
  // all) reaches a raw handler as an invalid ByteBuffer, and gRPC still runs it. The
  // reader then yields no bytes, which parse as the all-defaults request: without
  // this check such a call was served the default reply (200 realistic items) that
  // nobody asked for. (gRPC's own parser, in the message modes, checks the same
  // status and refuses.) An empty message (a 0-byte frame) is valid, and served.
  if (!reader.status().ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "no request message arrived: the stream ended before a whole message");
  }
  if (!request->ParseFromZeroCopyStream(&reader)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the request is not a reco.v1.RecommendRequest");
  }
  return grpc::Status::OK;
}

}  // namespace

grpc::ServerUnaryReactor* FragmentsService::Recommend(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request_bytes,
                                                      grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Parsing and admission before the build is measured, as in the message modes
  // (where gRPC parses before the handler runs): the build phase is the build.
  v1::RecommendRequest request;
  grpc::Status status = ParseRequest(*request_bytes, &request);
  if (status.ok()) status = Admit(reservations_, context, request);
  MeasuredBuild measured(meter_, context);  // measurement only: times and counts this call
  if (status.ok()) {
    thread_local patterns::SplicedReply reply;  // scratch, reused by this thread's calls
    reply.Clear();
    reply.set_copy_fragments_below(copy_fragments_below_);
    CallerStillWaits waits(context);
    if (BuildFragmentReplyUnlessStopped(*catalogue_, request, &reply, waits,
                                        CallerStillWaits::CheckEvery(check_every_items_))) {
      reply.Finish(response);  // copied items, or slices pointing into the catalogue
    } else {
      status = waits.AbandonedStatus();
    }
  }
  measured.Finish(status);
  reactor->Finish(status);
  return reactor;
}

}  // namespace reco
