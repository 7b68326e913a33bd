// See recommender_service.h.
#include "server/recommender_service.h"

#include "core/response_builder.h"
#include "server/handler_steps.h"

namespace reco {

grpc::ServerUnaryReactor* RecommenderService::Recommend(grpc::CallbackServerContext* context,
                                                        const v1::RecommendRequest* request,
                                                        v1::RecommendResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Admission before the build is measured: its connection lookup allocates (the
  // peer's name), which is the call's cost, not the build's.
  grpc::Status status = Admit(reservations_, context, *request);
  MeasuredBuild measured(meter_, context);  // measurement only: times and counts this call
  status = BuildForCaller(status, context, *catalogue_, *request, response, check_every_items_, item_data_);
  measured.Finish(status);
  // gRPC serializes the reply after this handler returns (see serialize_timer.h), and
  // releases the messages -- and the reservation -- when the call is done.
  reactor->Finish(status);
  return reactor;
}

}  // namespace reco
