// AsyncRecommender: reco.v1.Recommender's Recommend on gRPC's asynchronous
// completion-queue API (reco_server --api async), for the four message memory modes
// (fragments and the ceiling: async_raw_recommender.h).
// The handler is RecommenderService's, step for step (recommender_service.h): validate,
// reserve the reply's bytes from the budget, build with the stop check, finish with the
// status, measured by a MeasuredBuild -- only the API that hands calls to it differs.
//
// The memory mode is again the allocator given to the constructor, never null: the
// mode's grpc::MessageAllocator (core/message_store.h, wrapped by RpcMeter::Wrap when
// measuring), or HeapRecommendAllocator for heap (the async API has no default path:
// someone must new the two messages). patterns/async_arena_call.h takes each call's
// messages from it when the call is armed and releases them once Finish's tag is back.
//
// The reply budget: an async call has no context made by CallReservations, so each
// call owns a CallReservations::Hold (its CallState), reserved at admission and given
// back when the call ends -- after its messages are released, before its context goes
// -- so the watchdog can cancel an async call holding too long like a callback one.
//
// What differs from the callback service, by the API's nature:
//   - cancellation: the build sees its client's cancel through
//     patterns::AsyncCallCancelled(), which polls the serving queue (at the first
//     check, then at most once a millisecond);
//   - memory held while idle: every serving thread keeps one armed call, and with it
//     one set of messages (in arena_pool, one pooled arena and its initial block);
//   - serialization: Finish() serializes the reply inside the handler's thread before
//     it returns, so the serialize interceptor would time nothing: its phase is not
//     recorded under --api async (the build and release phases are).
//
// Example (wiring; see RecoServer::Parts):
//   reco::AsyncRecommender recommender(catalogue.get(), meter.Wrap(store->allocator()), &meter,
//                                      reservations /*null: no budget*/, /*check_every_items=*/16);
//   builder.RegisterService(recommender.service());
//   reco::patterns::ServingThreads threads(&builder, 2);
//   server = builder.BuildAndStart();
//   threads.Start([&](reco::patterns::ServingQueue* q) { recommender.Arm(q); });
//   ...
//   threads.Stop(server.get(), deadline);
//
// Thread-safety: Arm() on the serving thread of `queue` only. The catalogue, allocator,
// meter and reservations must outlive the serving threads' Stop().
#ifndef ARENA_GRPC_SERVER_ASYNC_RECOMMENDER_H_
#define ARENA_GRPC_SERVER_ASYNC_RECOMMENDER_H_

#include <cstdint>

#include "core/catalogue.h"
#include "core/message_store.h"
#include "core/response_builder.h"
#include "patterns/async_arena_call.h"
#include "proto/reco.grpc.pb.h"
#include "server/call_reservations.h"
#include "server/rpc_meter.h"

namespace reco {

// heap under --api async: a new request and response per call, deleted at Release().
class HeapRecommendAllocator final : public RecommendAllocator {
 public:
  RecommendHolder* AllocateMessages() override;
};

class AsyncRecommender {
 public:
  // allocator: never null. reservations: null builds every valid request (no budget).
  // item_data: as RecommenderService's.
  AsyncRecommender(const Catalogue* catalogue, RecommendAllocator* allocator, RpcMeter* meter,
                   CallReservations* reservations, uint32_t check_every_items, ItemData item_data = ItemData::kCopied);

  // Register it with the builder before BuildAndStart().
  grpc::Service* service() { return &service_; }
  // Waits for one Recommend call on `queue`: from `queue`'s serving thread only.
  void Arm(patterns::ServingQueue* queue) { method_.Arm(queue); }

 private:
  // What each call owns besides its messages: their holder (the allocator state
  // MeasuredBuild reads) and its reservation.
  struct CallState {
    explicit CallState(RecommendHolder* holder) : messages(holder) {}
    RecommendHolder* const messages;
    CallReservations::Hold reservation;
  };

  grpc::Status Recommend(grpc::ServerContext* context, const v1::RecommendRequest* request,
                         v1::RecommendResponse* response, CallState* call);

  const Catalogue* const catalogue_;
  RpcMeter* const meter_;
  CallReservations* const reservations_;
  const uint32_t check_every_items_;
  const ItemData item_data_;
  v1::Recommender::AsyncService service_;
  patterns::AsyncArenaMethod<v1::Recommender::AsyncService, v1::RecommendRequest, v1::RecommendResponse, CallState>
      method_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_ASYNC_RECOMMENDER_H_
