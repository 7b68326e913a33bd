// See call_reservations.h.
#include "server/call_reservations.h"

namespace reco {
namespace {

// A call's context with the bytes it holds from the budget.
class ReservingContext final : public grpc::CallbackServerContext {
 public:
  uint64_t reserved_bytes = 0;
};

}  // namespace

grpc::CallbackServerContext* CallReservations::NewCallbackServerContext() { return new ReservingContext; }

void CallReservations::Release(grpc::CallbackServerContext* context) {
  auto* call = static_cast<ReservingContext*>(context);
  if (call->reserved_bytes != 0) budget_->Release(call->reserved_bytes);
  delete call;
}

absl::Status CallReservations::Reserve(grpc::CallbackServerContext* context, uint64_t bytes) {
  auto* call = static_cast<ReservingContext*>(context);
  if (call->reserved_bytes != 0) return absl::FailedPreconditionError("this call already holds a reservation");
  absl::Status s = budget_->Reserve(bytes);
  if (s.ok()) call->reserved_bytes = bytes;
  return s;
}

}  // namespace reco
