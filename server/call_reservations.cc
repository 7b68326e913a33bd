// See call_reservations.h.
#include "server/call_reservations.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <grpc/grpc.h>

#include "absl/strings/str_cat.h"

namespace reco {

// A callback call's context, with the call's reservation.
class CallReservations::Call final : public grpc::CallbackServerContext {
 public:
  Hold hold;
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
  return Reserve(&call->hold, context, bytes);
}

absl::Status CallReservations::Reserve(Hold* hold, grpc::ServerContextBase* context, uint64_t bytes) {
  if (hold->owner_ != nullptr) return absl::FailedPreconditionError("this call already holds a reservation");
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
  hold->owner_ = this;
  hold->bytes_ = bytes;
  hold->peer_ = entry->first;
  if (watchdog_.joinable() && context->c_call() != nullptr) {  // (no call: a unit test's context)
    hold->core_call_ = context->c_call();
    hold->held_until_ = absl::Now() + limits_.max_hold;
    hold->held_ = true;
    hold->prev_ = held_tail_;
    (held_tail_ != nullptr ? held_tail_->next_ : held_head_) = hold;
    held_tail_ = hold;
  }
  return absl::OkStatus();
}

void CallReservations::Return(Hold* hold) {
  absl::MutexLock lock(&mu_);
  if (hold->held_) {
    (hold->prev_ != nullptr ? hold->prev_->next_ : held_head_) = hold->next_;
    (hold->next_ != nullptr ? hold->next_->prev_ : held_tail_) = hold->prev_;
    hold->held_ = false;
  }
  auto entry = by_connection_.find(hold->peer_);
  entry->second -= hold->bytes_;
  if (entry->second == 0) by_connection_.erase(entry);
  budget_->Release(hold->bytes_);
  hold->owner_ = nullptr;
  hold->bytes_ = 0;
}

void CallReservations::Release(grpc::CallbackServerContext* context) {
  // Not every context handed back was made here: gRPC's handler for a path the
  // server does not serve runs on a context in gRPC's own storage and still passes
  // it to this Release (see the header). Deleting that one aborts the process.
  auto* call = dynamic_cast<Call*>(context);
  if (call == nullptr) return;
  call->hold.Return();
  delete call;
}

void CallReservations::CancelOverdue() {
  // Each overdue call's grpc_call is referenced under the lock, while Return (which
  // runs before gRPC -- or the async call's context -- drops its own reference)
  // cannot have run, and cancelled outside
  // it: gRPC may run the call's callbacks, Release included, inside the cancel.
  std::vector<grpc_call*> overdue;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    while (held_head_ != nullptr && held_head_->held_until_ <= now) {
      Hold* hold = held_head_;
      held_head_ = hold->next_;
      (held_head_ != nullptr ? held_head_->prev_ : held_tail_) = nullptr;
      hold->held_ = false;
      grpc_call_ref(hold->core_call_);
      overdue.push_back(hold->core_call_);
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
