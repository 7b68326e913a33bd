// RecommenderService: reco.v1.Recommender on gRPC's callback API -- ONE handler for
// every memory mode.
//
// The mode is decided outside the handler: heap installs no MessageAllocator (gRPC's
// default path: plain messages in gRPC's per-call memory, every sub-message and string
// on the heap); reuse, arena and arena_pool install a StoreMessageAllocator before the
// server starts. The handler validates the request (INVALID_ARGUMENT with the
// validator's message), builds the response into whatever message gRPC hands it, and
// finishes. That is the point of the project: the memory mode is a deployment choice,
// not a code change in the handler.
//
// Measurement (with measure_phases): the handler times validate + build (plus
// the holder's Acquire in allocator modes) as the build phase and counts OK and
// refused RPCs; SerializeTimer and StoreMessageHolder measure the other two phases.
//
// Example:
//   reco::RecommenderService service(&recorder, /*measure_phases=*/true);
//   service.SetMessageAllocatorFor_Recommend(&allocator);   // not for heap
//   service.UseStoreHolders(true);                           // same condition
//   builder.RegisterService(&service);
//
// Thread-safety: Recommend() runs on gRPC's threads, many at once. The recorder must
// outlive the server.
#ifndef ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_
#define ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_

#include "proto/reco.grpc.pb.h"
#include "server/phase_recorder.h"

namespace reco {

class RecommenderService final : public v1::Recommender::CallbackService {
 public:
  // The handler always counts OK and refused RPCs in recorder; with measure_phases it
  // also times the build phase.
  RecommenderService(PhaseRecorder* recorder, bool measure_phases)
      : recorder_(recorder), measure_phases_(measure_phases) {}

  // True when a StoreMessageAllocator is installed: the handler then reads the
  // holder's Acquire cost and marks the holder answered. Call before the server starts.
  void UseStoreHolders(bool use) { store_holders_ = use; }

  grpc::ServerUnaryReactor* Recommend(grpc::CallbackServerContext* context, const v1::RecommendRequest* request,
                                      v1::RecommendResponse* response) override;

 private:
  PhaseRecorder* const recorder_;
  const bool measure_phases_;
  bool store_holders_ = false;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_
