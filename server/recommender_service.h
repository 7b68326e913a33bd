// RecommenderService: reco.v1.Recommender on gRPC's callback API -- ONE handler for
// every memory mode, bounded in the memory it holds.
//
// The memory mode is decided outside the handler, by the allocator given to the
// constructor: null for heap (gRPC's default path: plain messages, every sub-message
// and string on the heap), else the mode's grpc::MessageAllocator (core's
// MessageStore: reuse, arena or arena_pool), installed here so that it cannot be
// forgotten. That is the point of the project: the memory mode is a deployment
// choice, not a code change in the handler.
//
// What the handler does, in order (recommender_service.cc: steps 1 and 2 are one
// call, Admit; step 3 is BuildResponseUnlessStopped with a CallerStillWaits):
//   1. validate the request: INVALID_ARGUMENT with the validator's message;
//   2. reserve the reply's estimated bytes (core/reply_memory.h) from the server's
//      reply budget (call_reservations.h): RESOURCE_EXHAUSTED at once when spent --
//      never a wait -- so the replies in flight never hold more than the budget;
//   3. build (core/response_builder.h: items copied from the catalogue -- or, in
//      arena_alias, their static sub-messages aliased -- scores computed per
//      request), asking "is anyone still waiting?" (cancelled, or past the deadline)
//      before the first item and every `check_every_items` items: an abandoned call
//      finishes with CANCELLED / DEADLINE_EXCEEDED and gRPC releases its messages;
//   4. finish with the status. Measurement is two lines around the build: a
//      MeasuredBuild made after step 2 and finished before step 4 (rpc_meter.h).
// Steps 1-3's refusals and stop check are handler_steps.h's, shared with the
// fragments mode.
//
// Example (compiled in server/header_examples_test.cc):
//   reco::RpcMeter meter(/*measure_phases=*/true, 64);
//   reco::RecommenderService service(catalogue.get(), meter.Wrap(store->allocator()), &meter,
//                                    reservations /*null: no budget*/, /*check_every_items=*/16);
//   builder.RegisterService(&service);
//
// Thread-safety: Recommend() runs on gRPC's threads, many at once. The catalogue,
// the allocator, the meter and the reservations must outlive the server.
#ifndef ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_
#define ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_

#include <cstdint>

#include "core/catalogue.h"
#include "core/message_store.h"
#include "core/response_builder.h"
#include "proto/reco.grpc.pb.h"
#include "server/call_reservations.h"
#include "server/rpc_meter.h"

namespace reco {

class RecommenderService final : public v1::Recommender::CallbackService {
 public:
  // allocator: null for heap. reservations: null builds every valid request (no
  // budget); else it must be the server's context allocator. check_every_items: how
  // often the build asks whether the caller still waits (0: only before building).
  // item_data: kAliased (arena_alias) only with an allocator whose responses are on
  // arenas; elsewhere the build copies anyway (core/response_builder.h).
  RecommenderService(const Catalogue* catalogue, RecommendAllocator* allocator, RpcMeter* meter,
                     CallReservations* reservations, uint32_t check_every_items, ItemData item_data = ItemData::kCopied)
      : catalogue_(catalogue),
        meter_(meter),
        reservations_(reservations),
        check_every_items_(check_every_items),
        item_data_(item_data) {
    if (allocator != nullptr) SetMessageAllocatorFor_Recommend(allocator);
  }

  grpc::ServerUnaryReactor* Recommend(grpc::CallbackServerContext* context, const v1::RecommendRequest* request,
                                      v1::RecommendResponse* response) override;

 private:
  const Catalogue* const catalogue_;
  RpcMeter* const meter_;
  CallReservations* const reservations_;
  const uint32_t check_every_items_;
  const ItemData item_data_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_RECOMMENDER_SERVICE_H_
