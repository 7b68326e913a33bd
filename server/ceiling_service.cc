// See ceiling_service.h.
#include "server/ceiling_service.h"

#include <grpcpp/support/slice.h>

#include "core/response_builder.h"

namespace reco {

v1::RecommendRequest DefaultCeilingRequest() {
  // Mirrors reco_load's RequestSet variant 0 with its default flags.
  v1::RecommendRequest request;
  request.set_user_id("load-user-0");
  request.set_item_count(kDefaultItemCount);
  request.set_text_profile(v1::TEXT_PROFILE_REALISTIC);
  request.set_seed(1);
  return request;
}

CeilingService::CeilingService(const Catalogue& catalogue, const v1::RecommendRequest& request, RpcMeter* meter)
    : bytes_(BuildResponseBytes(catalogue, request)), meter_(meter) {
  // STATIC_SLICE: gRPC takes the memory as it is, never copies or frees it. bytes_
  // lives as long as this service, which outlives the server and every reply.
  grpc::Slice slice(bytes_.data(), bytes_.size(), grpc::Slice::STATIC_SLICE);
  reply_ = grpc::ByteBuffer(&slice, 1);
}

grpc::ServerUnaryReactor* CeilingService::Recommend(grpc::CallbackServerContext* context,
                                                    const grpc::ByteBuffer* /*request: ignored*/,
                                                    grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  MeasuredBuild measured(meter_, context);  // every request gets the reply
  *response = reply_;                       // a new byte-buffer header over the same static slice: no payload copy
  measured.Finish(grpc::Status::OK);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::Status CeilingService::RecommendAsync(grpc::ByteBuffer* response) {
  MeasuredBuild measured(meter_, static_cast<grpc::RpcAllocatorState*>(nullptr));
  *response = reply_;
  measured.Finish(grpc::Status::OK);
  return grpc::Status::OK;
}

}  // namespace reco
