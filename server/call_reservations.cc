// See call_reservations.h.
#include "server/call_reservations.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <grpc/grpc.h>

#include "absl/strings/str_cat.h"

namespace reco {

// A call's context with the bytes it holds from the budget, whose connection holds
// them, and its place in the hold list (while it holds any).
class CallReservations::Call final : public grpc::CallbackServerContext {
 public:
  uint64_t reserved_bytes = 0;
  std::string peer;
  grpc_call* core_call = nullptr;  // for the watchdog's cancel
  absl::Time held_until;           // when the watchdog cancels it
  bool held = false;               // in held_
  Call* prev = nullptr;
  Call* next = nullptr;
};

namespace {

// What a client whose reply was cancelled by the watchdog is told, when it can still
// be told anything (a client that reads nothing sees a stream reset).
constexpr char kHeldTooLong[] =
    "the reply was not taken within --max_reply_hold: cancelled to give its reservation back";

}  // namespace

CallReservations::CallReservations(ReplyBudget* budget, ReservationLimits limits)
    : budget_(budget),
      limits_(limits),
      // At least the largest reply: a connection with nothing out can always be
      // admitted whatever its share (the budget may still refuse).
      connection_cap_bytes_(std::max(
          budget->max_reply_bytes(),
          static_cast<uint64_t>(std::floor(static_cast<double>(budget->capacity_bytes()) *
                                           std::clamp(limits.max_connection_share, 0.0, 1.0))))) {
  if (limits_.max_hold > absl::ZeroDuration()) watchdog_ = std::thread([this] { WatchdogLoop(); });
}

CallReservations::~CallReservations() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (watchdog_.joinable()) watchdog_.join();
}

grpc::CallbackServerContext* CallReservations::NewCallbackServerContext() { return new Call; }

absl::Status CallReservations::Reserve(grpc::CallbackServerContext* context, uint64_t bytes) {
  auto* call = dynamic_cast<Call*>(context);
  if (call == nullptr) {
    return absl::FailedPreconditionError("the call's context was not made by this server's CallReservations");
  }
  if (call->reserved_bytes != 0) return absl::FailedPreconditionError("this call already holds a reservation");
  std::string peer = context->peer();
  absl::MutexLock lock(&mu_);
  auto [entry, inserted] = by_connection_.try_emplace(std::move(peer), 0);
  // A reply over the per-reply cap is the budget's to refuse, with its own message.
  if (entry->second + bytes > connection_cap_bytes_ && bytes <= budget_->max_reply_bytes()) {
    const uint64_t held = entry->second;
    if (inserted) by_connection_.erase(entry);
    budget_->CountRefusal(ReplyBudget::Refusal::kConnectionShare);
    return absl::ResourceExhaustedError(absl::StrCat(
        "this connection's replies in flight hold ", held, " bytes and this one needs ", bytes,
        ": past the connection's share of the reply budget (", connection_cap_bytes_, " bytes, ",
        limits_.max_connection_share, " of --inflight_budget_bytes; --max_connection_budget_share): read the "
        "replies already asked for, or spread calls over more connections"));
  }
  if (absl::Status s = budget_->Reserve(bytes); !s.ok()) {
    if (inserted) by_connection_.erase(entry);
    return s;
  }
  entry->second += bytes;
  call->reserved_bytes = bytes;
  call->peer = entry->first;
  if (watchdog_.joinable() && context->c_call() != nullptr) {  // (no call: a unit test's context)
    call->core_call = context->c_call();
    call->held_until = absl::Now() + limits_.max_hold;
    call->held = true;
    call->prev = held_tail_;
    (held_tail_ != nullptr ? held_tail_->next : held_head_) = call;
    held_tail_ = call;
  }
  return absl::OkStatus();
}

void CallReservations::Release(grpc::CallbackServerContext* context) {
  // Not every context handed back was made here: gRPC's handler for a path the
  // server does not serve runs on a context in gRPC's own storage and still passes
  // it to this Release (see the header). Deleting that one aborts the process.
  auto* call = dynamic_cast<Call*>(context);
  if (call == nullptr) return;
  if (call->reserved_bytes != 0) {
    absl::MutexLock lock(&mu_);
    if (call->held) {
      (call->prev != nullptr ? call->prev->next : held_head_) = call->next;
      (call->next != nullptr ? call->next->prev : held_tail_) = call->prev;
    }
    auto entry = by_connection_.find(call->peer);
    entry->second -= call->reserved_bytes;
    if (entry->second == 0) by_connection_.erase(entry);
    budget_->Release(call->reserved_bytes);
  }
  delete call;
}

void CallReservations::CancelOverdue() {
  // Each overdue call's grpc_call is referenced under the lock, while Release (which
  // runs before gRPC drops its own reference) cannot have run, and cancelled outside
  // it: gRPC may run the call's callbacks, Release included, inside the cancel.
  std::vector<grpc_call*> overdue;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    while (held_head_ != nullptr && held_head_->held_until <= now) {
      Call* call = held_head_;
      held_head_ = call->next;
      (held_head_ != nullptr ? held_head_->prev : held_tail_) = nullptr;
      call->held = false;
      grpc_call_ref(call->core_call);
      overdue.push_back(call->core_call);
    }
  }
  for (grpc_call* call : overdue) {
    grpc_call_cancel_with_status(call, GRPC_STATUS_CANCELLED, kHeldTooLong, nullptr);
    grpc_call_unref(call);
  }
  budget_->CountHoldCancels(overdue.size());
}

void CallReservations::WatchdogLoop() {
  const absl::Duration period = std::min(limits_.max_hold / 4, absl::Seconds(1));
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stopping_), period)) {
    mu_.Unlock();
    CancelOverdue();
    mu_.Lock();
  }
}

}  // namespace reco
