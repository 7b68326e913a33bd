// AsyncRawRecommender: Recommend as a raw (ByteBuffer) method on gRPC's asynchronous
// completion-queue API, for the modes that build no reply message (reco_server --api
// async --mode fragments|ceiling). The handler is the callback service's own
// (FragmentsService::RecommendAsync, CeilingService::RecommendAsync); only the API that
// hands calls to it differs, as in async_recommender.h.
//
// The calls are patterns/async_arena_call.h's, with a ByteBufferAllocator in place of
// a memory mode (two empty ByteBuffers per call: there is no message to place), and
// each call owns a CallReservations::Hold, given back when Finish's tag returns.
//
// gRPC parses nothing here, but it still refuses a call whose stream ended before a
// whole message: the async API cancels it INTERNAL "Unable to parse request" before
// the handler runs (the callback API runs the raw handler with an invalid buffer,
// which ParseRawRequest refuses INVALID_ARGUMENT).
//
// Example (wiring; see RecoServer::Parts):
//   reco::AsyncRawRecommender raw([&](grpc::ServerContext* c, const grpc::ByteBuffer* q,
//                                     grpc::ByteBuffer* r, reco::CallReservations::Hold* h) {
//     return fragments.RecommendAsync(c, q, r, h);
//   });
//   builder.RegisterService(raw.service());   // then ServingThreads as in async_recommender.h
//
// Thread-safety: Arm() on the serving thread of `queue` only. What the handler uses
// must outlive the serving threads' Stop().
#ifndef ARENA_GRPC_SERVER_ASYNC_RAW_RECOMMENDER_H_
#define ARENA_GRPC_SERVER_ASYNC_RAW_RECOMMENDER_H_

#include <functional>

#include <grpcpp/support/byte_buffer.h>

#include "patterns/async_arena_call.h"
#include "proto/reco.grpc.pb.h"
#include "server/call_reservations.h"

namespace reco {

// Two empty ByteBuffers per call, deleted at Release().
class ByteBufferAllocator final : public grpc::MessageAllocator<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  grpc::MessageHolder<grpc::ByteBuffer, grpc::ByteBuffer>* AllocateMessages() override;
};

class AsyncRawRecommender {
 public:
  using Handler = std::function<grpc::Status(grpc::ServerContext*, const grpc::ByteBuffer* request,
                                             grpc::ByteBuffer* response, CallReservations::Hold* hold)>;
  explicit AsyncRawRecommender(Handler handler);

  // Register it with the builder before BuildAndStart().
  grpc::Service* service() { return &service_; }
  // Waits for one Recommend call on `queue`: from `queue`'s serving thread only.
  void Arm(patterns::ServingQueue* queue) { method_.Arm(queue); }

 private:
  using RawService = v1::Recommender::WithRawMethod_Recommend<v1::Recommender::Service>;
  struct CallState {
    explicit CallState(grpc::MessageHolder<grpc::ByteBuffer, grpc::ByteBuffer>*) {}
    CallReservations::Hold reservation;
  };

  RawService service_;
  ByteBufferAllocator buffers_;
  patterns::AsyncArenaMethod<RawService, grpc::ByteBuffer, grpc::ByteBuffer, CallState> method_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_ASYNC_RAW_RECOMMENDER_H_
