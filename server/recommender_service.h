// RecommenderService: reco.v1.Recommender on gRPC's callback API -- ONE handler for
// every memory mode.
//
// The memory mode is decided outside the handler, by the allocator given to the
// constructor: null for heap (gRPC's default path: plain messages, every sub-message
// and string on the heap), else the mode's grpc::MessageAllocator (core's
// MessageStore: reuse, arena or arena_pool), installed here so that it cannot be
// forgotten. The handler validates the request (INVALID_ARGUMENT with the
// validator's message), builds the response into whatever message gRPC hands it, and
// finishes: gRPC's callback greeter plus one line of measurement (MeasuredBuild, see
// rpc_meter.h). That is the point of the project: the memory mode is a deployment
// choice, not a code change in the handler.
//
// Example:
//   reco::RpcMeter meter(/*measure_phases=*/true, 64);
//   reco::RecommenderService service(meter.Wrap(store->allocator()), &meter);
//   builder.RegisterService(&service);
//
// Thread-safety: Recommend() runs on gRPC's threads, many at once. The allocator and
// the meter must outlive the server.
#ifndef ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_
#define ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_

#include "core/message_store.h"
#include "proto/reco.grpc.pb.h"
#include "server/rpc_meter.h"

namespace reco {

class RecommenderService final : public v1::Recommender::CallbackService {
 public:
  // allocator: null for heap.
  RecommenderService(RecommendAllocator* allocator, RpcMeter* meter) : meter_(meter) {
    if (allocator != nullptr) SetMessageAllocatorFor_Recommend(allocator);
  }

  grpc::ServerUnaryReactor* Recommend(grpc::CallbackServerContext* context, const v1::RecommendRequest* request,
                                      v1::RecommendResponse* response) override;

 private:
  RpcMeter* const meter_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_
