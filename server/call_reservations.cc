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
  // Not every context handed back was made here: gRPC's handler for a path the
  // server does not serve runs on a context in gRPC's own storage and still passes
  // it to this Release (see the header). Deleting that one aborts the process.
  auto* call = dynamic_cast<ReservingContext*>(context);
  if (call == nullptr) return;
  if (call->reserved_bytes != 0) budget_->Release(call->reserved_bytes);
  delete call;
}

absl::Status CallReservations::Reserve(grpc::CallbackServerContext* context, uint64_t bytes) {
  auto* call = dynamic_cast<ReservingContext*>(context);
  if (call == nullptr) {
    return absl::FailedPreconditionError("the call's context was not made by this server's CallReservations");
  }
  if (call->reserved_bytes != 0) return absl::FailedPreconditionError("this call already holds a reservation");
  absl::Status s = budget_->Reserve(bytes);
  if (s.ok()) call->reserved_bytes = bytes;
  return s;
}

}  // namespace reco
