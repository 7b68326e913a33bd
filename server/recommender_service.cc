// See recommender_service.h.
#include "server/recommender_service.h"

#include "core/response_builder.h"

namespace reco {

grpc::ServerUnaryReactor* RecommenderService::Recommend(grpc::CallbackServerContext* context,
                                                        const v1::RecommendRequest* request,
                                                        v1::RecommendResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::Status valid = ValidateRequest(*request);
  MeasuredBuild measured(meter_, context, valid);  // measurement only: times and counts this call
  if (!valid.ok()) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(valid.message())));
    return reactor;
  }
  BuildResponse(*request, response);
  // gRPC serializes the reply after this handler returns (see serialize_timer.h).
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace reco
