// See recommender_service.h.
#include "server/recommender_service.h"

#include <chrono>
#include <limits>

#include "core/reply_memory.h"
#include "core/response_builder.h"

namespace reco {
namespace {

// absl and gRPC number their status codes alike (both follow google.rpc.Code).
grpc::Status ToGrpcStatus(const absl::Status& s) {
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

}  // namespace

grpc::ServerUnaryReactor* RecommenderService::Recommend(grpc::CallbackServerContext* context,
                                                        const v1::RecommendRequest* request,
                                                        v1::RecommendResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  MeasuredBuild measured(meter_, context);  // measurement only: times and counts this call
  grpc::Status status = Admit(context, *request);
  if (status.ok()) status = BuildWhileAwaited(context, *request, response);
  measured.Finish(status);
  // gRPC serializes the reply after this handler returns (see serialize_timer.h), and
  // releases the messages -- and the reservation -- when the call is done.
  reactor->Finish(status);
  return reactor;
}

grpc::Status RecommenderService::Admit(grpc::CallbackServerContext* context, const v1::RecommendRequest& request) {
  if (absl::Status valid = ValidateRequest(request); !valid.ok()) return ToGrpcStatus(valid);
  if (reservations_ == nullptr) return grpc::Status::OK;
  return ToGrpcStatus(reservations_->Reserve(context, EstimateReplyBytes(request)));
}

grpc::Status RecommenderService::BuildWhileAwaited(grpc::CallbackServerContext* context,
                                                   const v1::RecommendRequest& request,
                                                   v1::RecommendResponse* response) {
  const std::chrono::system_clock::time_point deadline = context->deadline();
  bool past_deadline = false;
  auto nobody_waits = [&] {
    past_deadline = std::chrono::system_clock::now() >= deadline;
    return past_deadline || context->IsCancelled();
  };
  const uint32_t every = check_every_items_ == 0 ? std::numeric_limits<uint32_t>::max() : check_every_items_;
  if (BuildResponseUnlessStopped(*catalogue_, request, response, nobody_waits, every)) return grpc::Status::OK;
  return past_deadline ? grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed while building the reply")
                       : grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled while building the reply");
}

}  // namespace reco
