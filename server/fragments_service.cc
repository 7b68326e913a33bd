// See fragments_service.h.
#include "server/fragments_service.h"

#include "core/fragment_reply.h"
#include "patterns/raw_request.h"
#include "patterns/spliced_reply.h"
#include "server/handler_steps.h"

namespace reco {

grpc::ServerUnaryReactor* FragmentsService::Recommend(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request_bytes,
                                                      grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Parsing and admission before the build is measured, as in the message modes
  // (where gRPC parses before the handler runs): the build phase is the build. A
  // stream that ended early is refused there, not served the all-defaults reply.
  v1::RecommendRequest request;
  grpc::Status status = patterns::ParseRawRequest(*request_bytes, &request);
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
