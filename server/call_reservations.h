// CallReservations: holds a call's ReplyBudget reservation for exactly as long as
// gRPC holds the call's reply, in every memory mode.
//
// The reply's memory is freed when gRPC releases the call's messages (the
// MessageAllocator holder's Release(), or gRPC's own delete in heap mode), which
// happens in the call's CallOnDone -- after the reply was sent, or after the call was
// cancelled. The one hook gRPC 1.51 offers there for every mode is the server's
// grpc::ContextAllocator, whose Release(context) runs right after the messages are
// released. So this allocator makes each call's CallbackServerContext with a field
// for the bytes reserved, and gives them back in Release(): the budget is never
// released while the reply still exists, and never leaks when the client goes away.
//
// Contexts this allocator did not make: gRPC 1.51 passes every callback call's
// context to Release(CallbackServerContext*) when the call is done, including the
// GenericCallbackServerContext its handler for unserved paths (an unknown service or
// method, a wrong-case name, reflection v1) builds in its own storage, because this
// allocator makes no generic contexts (NewGenericCallbackServerContext is not
// overridden). Release gives back and deletes only the contexts it made, and leaves
// the others to gRPC: deleting one aborted the process on one call to an unknown
// method (tests/hostile/hostile_method_paths_test.cc).
//
// Cost: the context is new'd and deleted per call (gRPC otherwise constructs it in
// storage it already has): one malloc and one free per call of any method, counted in
// the process figures, none in the build phase.
//
// Example (wiring; see RecoServer::Start and RecommenderService):
//   reco::ReplyBudget budget(256 << 20, 32 << 20);
//   auto contexts = std::make_unique<reco::CallReservations>(&budget);
//   reco::CallReservations* reservations = contexts.get();
//   builder.SetContextAllocator(std::move(contexts));
//   // in the handler, context being the call's CallbackServerContext:
//   absl::Status s = reservations->Reserve(context, reco::EstimateReplyBytes(*request));
//
// Thread-safety: every method from any thread. The budget must outlive the server.
#ifndef ARENA_GRPC_SERVER_CALL_RESERVATIONS_H_
#define ARENA_GRPC_SERVER_CALL_RESERVATIONS_H_

#include <cstdint>

#include <grpcpp/server_context.h>

#include "absl/status/status.h"
#include "server/reply_budget.h"

namespace reco {

class CallReservations final : public grpc::ContextAllocator {
 public:
  explicit CallReservations(ReplyBudget* budget) : budget_(budget) {}

  // Reserves `bytes` from the budget for the call of `context` until gRPC releases
  // it: OK, or the budget's RESOURCE_EXHAUSTED with nothing reserved. At most one
  // reservation per call (a second one is refused as FAILED_PRECONDITION), and none
  // for a context this allocator did not make (FAILED_PRECONDITION too).
  absl::Status Reserve(grpc::CallbackServerContext* context, uint64_t bytes);

  ReplyBudget* budget() const { return budget_; }

  grpc::CallbackServerContext* NewCallbackServerContext() override;
  // Gives back the reservation of, and deletes, a context made by
  // NewCallbackServerContext; leaves any other context alone.
  void Release(grpc::CallbackServerContext* context) override;

 private:
  ReplyBudget* const budget_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_CALL_RESERVATIONS_H_
