// See fragments_service.h.
#include "server/fragments_service.h"

#include "core/fragment_reply.h"
#include "patterns/raw_request.h"
#include "patterns/spliced_reply.h"
#include "server/handler_steps.h"

namespace reco {

template <typename Context, typename AdmitFn>
grpc::Status FragmentsService::Answer(Context* context, const grpc::ByteBuffer& request_bytes,
                                      grpc::ByteBuffer* response, AdmitFn admit) {
  // Parsing and admission before the build is measured, as in the message modes
  // (where gRPC parses before the handler runs): the build phase is the build. A
  // stream that ended early is refused there, not served the all-defaults reply.
  v1::RecommendRequest request;
  grpc::Status status = patterns::ParseRawRequest(request_bytes, &request);
  if (status.ok()) status = admit(request);
  // Measurement only: times and counts this call (no allocator state: no messages).
  MeasuredBuild measured(meter_, static_cast<grpc::RpcAllocatorState*>(nullptr));
  if (status.ok()) status = write_once_ ? WriteOnce(context, request, response) : Splice(context, request, response);
  measured.Finish(status);
  return status;
}

bool FragmentsService::CopiesEveryItem(const Catalogue& catalogue, size_t copy_fragments_below) {
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    for (uint32_t i = 0; i < catalogue.size(); ++i) {
      if (catalogue.fragment(profile, i).size() >= copy_fragments_below) return false;
    }
  }
  return true;
}

template <typename Context>
grpc::Status FragmentsService::WriteOnce(Context* context, const v1::RecommendRequest& request,
                                         grpc::ByteBuffer* response) {
  CallerStillWaits waits(context);
  switch (WriteFragmentReplyUnlessStopped(*catalogue_, request, response, waits,
                                          CallerStillWaits::CheckEvery(check_every_items_))) {
    case FragmentWrite::kWritten:
      return grpc::Status::OK;
    case FragmentWrite::kStopped:
      return waits.AbandonedStatus();
    case FragmentWrite::kWrongSize:
      break;
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, "fragments: the reply's size and its bytes disagreed (a server bug)");
}

template <typename Context>
grpc::Status FragmentsService::Splice(Context* context, const v1::RecommendRequest& request,
                                      grpc::ByteBuffer* response) {
  thread_local patterns::SplicedReply reply;  // scratch, reused by this thread's calls
  reply.Clear();
  reply.set_copy_fragments_below(copy_fragments_below_);
  CallerStillWaits waits(context);
  if (!BuildFragmentReplyUnlessStopped(*catalogue_, request, &reply, waits,
                                       CallerStillWaits::CheckEvery(check_every_items_))) {
    return waits.AbandonedStatus();
  }
  reply.Finish(response);  // copied items, or slices pointing into the catalogue
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* FragmentsService::Recommend(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request_bytes,
                                                      grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(Answer(context, *request_bytes, response,
                         [&](const v1::RecommendRequest& request) { return Admit(reservations_, context, request); }));
  return reactor;
}

grpc::Status FragmentsService::RecommendAsync(grpc::ServerContext* context, const grpc::ByteBuffer* request_bytes,
                                              grpc::ByteBuffer* response, CallReservations::Hold* hold) {
  return Answer(context, *request_bytes, response,
                [&](const v1::RecommendRequest& request) { return Admit(reservations_, hold, context, request); });
}

}  // namespace reco
