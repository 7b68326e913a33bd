// See call_reservations.h.
#include "server/call_reservations.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <grpc/grpc.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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

// The longest a client is refused for its replies not taken, and how long a client
// with nothing reserved is remembered after its penalty ended (its strikes with it).
constexpr absl::Duration kMaxPenalty = absl::Minutes(10);

// The most `share` of `capacity` lets one holder take, and at least one reply.
uint64_t CapBytes(const ReplyBudget& budget, double share) {
  const double capacity = static_cast<double>(budget.capacity_bytes());
  return std::max(budget.max_reply_bytes(), static_cast<uint64_t>(std::floor(capacity * std::clamp(share, 0.0, 1.0))));
}

// The address of the socket gRPC names "fd:N": connections reco_server's acceptor
// hands over (server/connection_acceptor.h) carry no address in gRPC's peer. Read
// while the call is on that connection, so N is still its socket. Empty if unknown.
std::string AddressOfFd(const std::string& peer) {
  int fd = -1;
  if (!absl::SimpleAtoi(absl::string_view(peer).substr(3), &fd)) return "";
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&address)->sin_addr, text, sizeof text);
    return absl::StrCat("ipv4:", text);
  }
  if (address.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr, text, sizeof text);
    return absl::StrCat("ipv6:[", text, "]");
  }
  return "";
}

// The client of a call: `header`'s last comma-separated value when the call carries
// it, else the peer without its port ("ipv4:10.0.0.7:51234" -> "ipv4:10.0.0.7",
// "ipv6:[::1]:5" -> "ipv6:[::1]"; "fd:N" -> that socket's address; any other peer,
// e.g. a unix socket's, as it is).
std::string ClientOf(const grpc::ServerContextBase& context, const std::string& peer, const std::string& header) {
  if (!header.empty()) {
    const auto& metadata = context.client_metadata();
    if (auto it = metadata.find(header); it != metadata.end()) {
      absl::string_view value(it->second.data(), it->second.size());
      const size_t comma = value.rfind(',');
      if (comma != absl::string_view::npos) value.remove_prefix(comma + 1);
      return absl::StrCat("forwarded:", absl::StripAsciiWhitespace(value));
    }
  }
  if (absl::StartsWith(peer, "ipv4:") || absl::StartsWith(peer, "ipv6:")) {
    const size_t colon = peer.rfind(':');
    if (colon > 5 && peer[colon - 1] != ':') return peer.substr(0, colon);
  }
  if (absl::StartsWith(peer, "fd:")) {
    if (std::string address = AddressOfFd(peer); !address.empty()) return address;
  }
  return peer;
}

}  // namespace

CallReservations::CallReservations(ReplyBudget* budget, ReservationLimits limits)
    : budget_(budget),
      limits_(limits),
      // At least the largest reply: a connection with nothing out can always be
      // admitted whatever its share (the budget may still refuse).
      connection_cap_bytes_(CapBytes(*budget, limits.max_connection_share)),
      client_cap_bytes_(CapBytes(*budget, limits.max_client_share)) {
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
  std::string client = ClientOf(*context, peer, limits_.client_header);
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  // Not structured bindings: clang before 16 cannot capture them in the lambda.
  const auto client_emplaced = by_client_.try_emplace(std::move(client));
  const auto client_entry = client_emplaced.first;
  const bool client_inserted = client_emplaced.second;
  auto forget_client = [&] {
    if (client_inserted) by_client_.erase(client_entry);
  };
  if (now < client_entry->second.refused_until) {
    budget_->CountRefusal(ReplyBudget::Refusal::kClientPenalty);
    return absl::ResourceExhaustedError(absl::StrCat(
        "this client's replies were not taken within --max_reply_hold (", absl::FormatDuration(limits_.max_hold),
        "): its calls are refused for ",
        absl::FormatDuration(absl::Ceil(client_entry->second.refused_until - now, absl::Seconds(1))), " more"));
  }
  auto [entry, inserted] = by_connection_.try_emplace(std::move(peer), 0);
  // A reply over the per-reply cap is the budget's to refuse, with its own message.
  if (entry->second + bytes > connection_cap_bytes_ && bytes <= budget_->max_reply_bytes()) {
    const uint64_t held = entry->second;
    if (inserted) by_connection_.erase(entry);
    forget_client();
    budget_->CountRefusal(ReplyBudget::Refusal::kConnectionShare);
    return absl::ResourceExhaustedError(
        absl::StrCat("this connection's replies in flight hold ", held, " bytes and this one needs ", bytes,
                     ": past the connection's share of the reply budget (", connection_cap_bytes_, " bytes, ",
                     limits_.max_connection_share,
                     " of --inflight_budget_bytes; --max_connection_budget_share): read the "
                     "replies already asked for, or spread calls over more connections"));
  }
  if (client_entry->second.bytes + bytes > client_cap_bytes_ && bytes <= budget_->max_reply_bytes()) {
    const uint64_t held = client_entry->second.bytes;
    if (inserted) by_connection_.erase(entry);
    forget_client();
    budget_->CountRefusal(ReplyBudget::Refusal::kClientShare);
    return absl::ResourceExhaustedError(absl::StrCat(
        "this client's replies in flight hold ", held, " bytes and this one needs ", bytes,
        ": past a client's share of the reply budget (", client_cap_bytes_, " bytes, ", limits_.max_client_share,
        " of --inflight_budget_bytes; --max_client_budget_share), all its connections together: read the replies "
        "already asked for"));
  }
  if (absl::Status s = budget_->Reserve(bytes); !s.ok()) {
    if (inserted) by_connection_.erase(entry);
    forget_client();
    return s;
  }
  entry->second += bytes;
  client_entry->second.bytes += bytes;
  hold->owner_ = this;
  hold->bytes_ = bytes;
  hold->peer_ = entry->first;
  hold->client_ = client_entry->first;
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
  by_client_[hold->client_].bytes -= hold->bytes_;
  MaybeForget(hold->client_, absl::Now());
  budget_->Release(hold->bytes_);
  hold->owner_ = nullptr;
  hold->bytes_ = 0;
}

void CallReservations::MaybeForget(const std::string& client, absl::Time now) {
  auto it = by_client_.find(client);
  if (it == by_client_.end() || it->second.bytes > 0) return;
  if (it->second.strikes == 0 || now > it->second.refused_until + kMaxPenalty) by_client_.erase(it);
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
    absl::flat_hash_map<std::string, bool> struck;  // one strike per client per pass
    while (held_head_ != nullptr && held_head_->held_until_ <= now) {
      Hold* hold = held_head_;
      held_head_ = hold->next_;
      (held_head_ != nullptr ? held_head_->prev_ : held_tail_) = nullptr;
      hold->held_ = false;
      grpc_call_ref(hold->core_call_);
      overdue.push_back(hold->core_call_);
      if (struck.emplace(hold->client_, true).second) {
        Client& client = by_client_[hold->client_];  // present: the hold is still out
        client.strikes = std::min(client.strikes + 1, 20);
        client.refused_until = now + std::min(limits_.max_hold * (1 << (client.strikes - 1)), kMaxPenalty);
      }
    }
    // Clients that hold nothing and whose penalty ended long ago are forgotten.
    for (auto it = by_client_.begin(); it != by_client_.end();) {
      auto next = std::next(it);
      if (it->second.bytes == 0 && now > it->second.refused_until + kMaxPenalty) by_client_.erase(it);
      it = next;
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
