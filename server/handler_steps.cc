// See handler_steps.h.
#include "server/handler_steps.h"

#include "core/reply_memory.h"
#include "core/request.h"

namespace reco {
namespace {

// absl and gRPC number their status codes alike (both follow google.rpc.Code).
grpc::Status ToGrpcStatus(const absl::Status& s) {
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

}  // namespace

grpc::Status Admit(CallReservations* reservations, grpc::CallbackServerContext* context,
                   const v1::RecommendRequest& request) {
  if (absl::Status valid = ValidateRequest(request); !valid.ok()) return ToGrpcStatus(valid);
  if (reservations == nullptr) return grpc::Status::OK;
  return ToGrpcStatus(reservations->Reserve(context, EstimateReplyBytes(request)));
}

grpc::Status Admit(CallReservations* reservations, CallReservations::Hold* hold, grpc::ServerContextBase* context,
                   const v1::RecommendRequest& request) {
  if (absl::Status valid = ValidateRequest(request); !valid.ok()) return ToGrpcStatus(valid);
  if (reservations == nullptr) return grpc::Status::OK;
  return ToGrpcStatus(reservations->Reserve(hold, context, EstimateReplyBytes(request)));
}

grpc::Status CallerStillWaits::AbandonedStatus() const {
  return past_deadline_ ? grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline passed while building the reply")
                        : grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled while building the reply");
}

}  // namespace reco
