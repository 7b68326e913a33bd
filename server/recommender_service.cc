// See recommender_service.h.
#include "server/recommender_service.h"

#include "core/response_builder.h"
#include "server/store_message_allocator.h"

namespace reco {

grpc::ServerUnaryReactor* RecommenderService::Recommend(grpc::CallbackServerContext* context,
                                                        const v1::RecommendRequest* request,
                                                        v1::RecommendResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  PhaseClock clock;
  absl::Status valid = ValidateRequest(*request);
  if (!valid.ok()) {
    recorder_->CountRpc(false);
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(valid.message())));
    return reactor;
  }
  BuildResponse(*request, response);
  if (measure_phases_) {
    PhaseSample build = clock.Elapsed();
    if (store_holders_) {
      // gRPC hands the handler our holder as the call's allocator state.
      auto* holder = static_cast<StoreMessageHolder*>(context->GetRpcAllocatorState());
      build += holder->acquire_cost();
      holder->MarkAnswered();
    }
    recorder_->Record(Phase::kBuild, build);
  }
  recorder_->CountRpc(true);
  // gRPC serializes the reply after this handler returns (see serialize_timer.h).
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace reco
