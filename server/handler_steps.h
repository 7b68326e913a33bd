// The steps every Recommend handler takes around its build, shared by the message
// modes (recommender_service.h) and the fragments mode (fragments_service.h) so that
// both refuse, reserve and give up alike:
//   Admit              validate the request (INVALID_ARGUMENT with the validator's
//                      message), then reserve the reply's estimated bytes from the
//                      server's budget (RESOURCE_EXHAUSTED at once when spent);
//   CallerStillWaits   the build's stop check: "cancelled, or past the deadline?";
//                      after a stop, AbandonedStatus() is CANCELLED or DEADLINE_EXCEEDED.
//
// Example (inside a handler):
//   grpc::Status status = reco::Admit(reservations_, context, request);
//   if (status.ok()) {
//     reco::CallerStillWaits waits(context);
//     if (!BuildResponseUnlessStopped(catalogue, request, response, waits, every))
//       status = waits.AbandonedStatus();
//   }
//
// Thread-safety: per call; a CallerStillWaits belongs to one handler invocation.
#ifndef ARENA_GRPC_SERVER_HANDLER_STEPS_H_
#define ARENA_GRPC_SERVER_HANDLER_STEPS_H_

#include <cstdint>
#include <limits>

#include <grpc/support/time.h>
#include <grpcpp/server_context.h>

#include "core/catalogue.h"
#include "core/response_builder.h"
#include "patterns/async_arena_call.h"
#include "proto/reco.pb.h"
#include "server/call_reservations.h"

namespace reco {

// OK, or the status to refuse the call with. reservations null: no budget.
grpc::Status Admit(CallReservations* reservations, grpc::CallbackServerContext* context,
                   const v1::RecommendRequest& request);
// The same for an async call (async_recommender.h), whose reservation is its own
// `hold` (call_reservations.h).
grpc::Status Admit(CallReservations* reservations, CallReservations::Hold* hold, grpc::ServerContextBase* context,
                   const v1::RecommendRequest& request);

class CallerStillWaits {
 public:
  // A callback call: cancelled, or past its deadline.
  explicit CallerStillWaits(grpc::CallbackServerContext* context) : CallerStillWaits(context, true) {}
  // An async call run by patterns/async_arena_call.h: the same, seen through
  // patterns::AsyncCallCancelled() (the cancellation arrives on the queue whose thread
  // runs this build, which takes it while it builds).
  explicit CallerStillWaits(grpc::ServerContext* context) : CallerStillWaits(context, false) {}

  // True when the build should stop: the call was cancelled or its deadline passed.
  // A CallerStillWaits is the builders' stop_requested (pass it by reference).
  //
  // The deadline is gRPC's own time, not context->deadline(): a grpc-timeout may be
  // up to 99999999H, and one past ~292 years from now overflowed system_clock's
  // int64 nanoseconds into a deadline in the past -- such a call was answered
  // DEADLINE_EXCEEDED at its first check. gpr time saturates instead.
  bool operator()() const {
    past_deadline_ = gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), deadline_) >= 0;
    return past_deadline_ || (callback_ ? context_->IsCancelled() : patterns::AsyncCallCancelled());
  }
  // After a stop: DEADLINE_EXCEEDED or CANCELLED, with a message saying when.
  grpc::Status AbandonedStatus() const;

  // --check_every_items as the builders take it: 0 means "only before building".
  static uint32_t CheckEvery(uint32_t check_every_items) {
    return check_every_items == 0 ? std::numeric_limits<uint32_t>::max() : check_every_items;
  }

 private:
  CallerStillWaits(grpc::ServerContextBase* context, bool callback)
      : context_(context),
        callback_(callback),
        deadline_(gpr_convert_clock_type(context->raw_deadline(), GPR_CLOCK_MONOTONIC)) {}

  grpc::ServerContextBase* const context_;
  const bool callback_;                 // else an async call (AsyncCallCancelled)
  const gpr_timespec deadline_;         // GPR_CLOCK_MONOTONIC, or infinite
  mutable bool past_deadline_ = false;  // what the last check saw
};

// The build both APIs run once Admit has answered: the reply unless `admitted` is
// not OK or the caller left meanwhile (then the status says which). `Context` is
// grpc::CallbackServerContext or grpc::ServerContext: CallerStillWaits sees each
// one's cancellation its own way.
template <typename Context>
grpc::Status BuildForCaller(grpc::Status admitted, Context* context, const Catalogue& catalogue,
                            const v1::RecommendRequest& request, v1::RecommendResponse* response,
                            uint32_t check_every_items, ItemData item_data) {
  if (!admitted.ok()) return admitted;
  CallerStillWaits waits(context);
  if (!BuildResponseUnlessStopped(catalogue, request, response, waits, CallerStillWaits::CheckEvery(check_every_items),
                                  item_data)) {
    return waits.AbandonedStatus();
  }
  return grpc::Status::OK;
}

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_HANDLER_STEPS_H_
