// CallReservations: holds a call's ReplyBudget reservation for exactly as long as
// gRPC holds the call's reply, in every memory mode, and keeps any one connection
// from holding the whole budget.
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
// Fairness. A client that asks for large replies and never reads them (an HTTP/2
// window of 0) would otherwise hold the budget until its connection is closed, and
// every other client would be refused meanwhile. These limits stop that:
//   - a connection's share: the reservations of one connection (one gRPC peer,
//     address and port) may hold at most `max_connection_share` of the budget's
//     capacity (and at least one reply of the per-reply cap, so that the largest
//     reply allowed can always be admitted); past it that connection's calls are
//     refused RESOURCE_EXHAUSTED with a message saying so, while other connections
//     are still admitted. Behind a proxy that multiplexes many clients onto few
//     connections, raise it (or set 1).
//   - a client's share: all the connections of one client together may hold at most
//     `max_client_share` (the same floor), so that opening more connections gains a
//     client nothing. A client is the peer's address without its port, or, with
//     `client_header`, that metadata's last comma-separated value (the shipped edge
//     sets x-forwarded-for and drops the client's own; trust it only where every
//     connection comes through such an edge).
//   - a hold time: a call that still holds its reservation `max_hold` after it was
//     admitted (its reply built but not taken) is cancelled, which gives the
//     reservation back. A watchdog thread looks for them every max_hold / 4 (at most
//     every second), so a reservation is held at most about 1.25 x max_hold.
//   - a penalty: a client whose call the watchdog cancelled is refused at once, every
//     call, for max_hold, doubled at each further cancellation (at most 10 minutes),
//     so that a client that does not read does not get its share straight back.
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
// The async API (--api async, async_recommender.h). Its calls have no context made
// here (the ContextAllocator serves callback calls only), so a reservation is a Hold
// the call owns: Reserve(hold, context, bytes) at admission, and the Hold given back
// (Return(), or its destructor) when the call ends -- after Finish's tag came back,
// which is when gRPC is done with the reply -- and before the call's ServerContext is
// destroyed: until then the watchdog may still cancel the call through the context's
// grpc_call, exactly as a callback call's. A callback call's context holds its Hold
// the same way; the fairness limits and the watchdog see no difference.
//
// Memory: the budget bounds the replies; on top, one entry (the peer's name and a
// count) per connection with a reservation out, and one per client with a
// reservation out or a penalty in the last 10 minutes. Cost per call: the context's
// new/delete, and for a call that reserves, its peer string and two lock/unlock
// pairs (Reserve, Release) -- process figures only, none in the build phase.
//
// Example (wiring; see RecoServer::Start and RecommenderService):
//   reco::ReplyBudget budget(256 << 20, 32 << 20);
//   auto contexts = std::make_unique<reco::CallReservations>(&budget, reco::ReservationLimits{});
//   reco::CallReservations* reservations = contexts.get();
//   builder.SetContextAllocator(std::move(contexts));
//   // in the handler, context being the call's CallbackServerContext:
//   absl::Status s = reservations->Reserve(context, reco::EstimateReplyBytes(*request));
//
// Thread-safety: every method from any thread. The budget must outlive this object,
// which must outlive every call it made a context for (the gRPC server owns it).
#ifndef ARENA_GRPC_SERVER_CALL_RESERVATIONS_H_
#define ARENA_GRPC_SERVER_CALL_RESERVATIONS_H_

#include <cstdint>
#include <string>
#include <thread>

#include <grpc/grpc.h>
#include <grpcpp/server_context.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/reply_budget.h"

namespace reco {

struct ReservationLimits {
  // The most one connection's reservations may hold, as a share of the budget's
  // capacity: in (0, 1]; 1 lets one connection take it all.
  double max_connection_share = 0.5;
  // A call holding its reservation this long after admission is cancelled; zero:
  // never.
  absl::Duration max_hold = absl::Seconds(10);
  // The most one client's reservations may hold, all its connections together, as a
  // share of the capacity: in (0, 1].
  double max_client_share = 0.5;
  // The metadata key naming the client (its last comma-separated value), e.g.
  // "x-forwarded-for" behind the shipped edge; empty: the peer's address.
  std::string client_header;
};

class CallReservations final : public grpc::ContextAllocator {
 public:
  // One call's reservation: nothing until Reserve() admits it, then its bytes, its
  // connection and its place in the watchdog's list until it is given back. Owned by
  // the call (never shared, never moved); given back on destruction at the latest.
  class Hold {
   public:
    Hold() = default;
    ~Hold() { Return(); }
    // Gives the reservation back (nothing if none is held): the call is over.
    void Return() {
      if (owner_ != nullptr) owner_->Return(this);
    }
    uint64_t bytes() const { return bytes_; }

    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    friend class CallReservations;
    CallReservations* owner_ = nullptr;  // set while a reservation is held
    uint64_t bytes_ = 0;
    std::string peer_;
    std::string client_;
    grpc_call* core_call_ = nullptr;  // for the watchdog's cancel
    absl::Time held_until_;           // when the watchdog cancels it
    bool held_ = false;               // in held_
    Hold* prev_ = nullptr;
    Hold* next_ = nullptr;
  };

  CallReservations(ReplyBudget* budget, ReservationLimits limits);
  ~CallReservations() override;

  // Reserves `bytes` from the budget for the call of `context` until gRPC releases
  // it: OK, or RESOURCE_EXHAUSTED with nothing reserved -- the budget's refusal, or
  // the connection's share spent. At most one reservation per call (a second one is
  // refused as FAILED_PRECONDITION), and none for a context this allocator did not
  // make (FAILED_PRECONDITION too).
  absl::Status Reserve(grpc::CallbackServerContext* context, uint64_t bytes);
  // The same for a call whose context was not made here (the async API): `hold` is
  // the call's own, given back by hold->Return() or its destruction, which must come
  // before `context` is destroyed. FAILED_PRECONDITION if `hold` already holds one.
  absl::Status Reserve(Hold* hold, grpc::ServerContextBase* context, uint64_t bytes);

  ReplyBudget* budget() const { return budget_; }
  const ReservationLimits& limits() const { return limits_; }
  // The most one connection may hold: max_connection_share of the capacity, and at
  // least the budget's max_reply_bytes.
  uint64_t connection_cap_bytes() const { return connection_cap_bytes_; }
  // The most one client may hold: max_client_share, with the same floor.
  uint64_t client_cap_bytes() const { return client_cap_bytes_; }

  grpc::CallbackServerContext* NewCallbackServerContext() override;
  // Gives back the reservation of, and deletes, a context made by
  // NewCallbackServerContext; leaves any other context alone.
  void Release(grpc::CallbackServerContext* context) override;

  CallReservations(const CallReservations&) = delete;
  CallReservations& operator=(const CallReservations&) = delete;

 private:
  class Call;  // a context with its Hold

  // What one client holds, and its penalty.
  struct Client {
    uint64_t bytes = 0;
    int strikes = 0;           // calls of it the watchdog cancelled, in a row of penalties
    absl::Time refused_until;  // its calls are refused until then
  };

  void Return(Hold* hold);
  // Forgets the client when it holds nothing and its last penalty is long over.
  void MaybeForget(const std::string& client, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void CancelOverdue();  // the watchdog's pass
  void WatchdogLoop();

  ReplyBudget* const budget_;
  const ReservationLimits limits_;
  const uint64_t connection_cap_bytes_;
  const uint64_t client_cap_bytes_;

  absl::Mutex mu_;
  // Bytes reserved per connection (peer); an entry goes when its count reaches 0.
  absl::flat_hash_map<std::string, uint64_t> by_connection_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Client> by_client_ ABSL_GUARDED_BY(mu_);
  // Calls holding a reservation, oldest admission first (a fixed max_hold keeps the
  // list in deadline order): the watchdog only looks at its head.
  Hold* held_head_ ABSL_GUARDED_BY(mu_) = nullptr;
  Hold* held_tail_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watchdog_;  // only when max_hold > 0
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_CALL_RESERVATIONS_H_
