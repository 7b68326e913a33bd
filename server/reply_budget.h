// ReplyBudget: a process-wide byte budget for the replies in flight.
//
// Before building a reply the server reserves its estimated memory
// (core/reply_memory.h); when gRPC releases the call, the reservation goes back. A
// reservation that would take the bytes in flight past the capacity, or that alone
// exceeds max_reply_bytes, is refused at once with RESOURCE_EXHAUSTED and a message
// naming the limit and its flag: never a wait, never an unbounded queue. So the reply
// memory the server holds is bounded by the capacity, whatever the clients do.
//
// reco_server holds each call's reservation in its context (call_reservations.h) and
// releases it in gRPC's ContextAllocator::Release, which runs after the message
// holder's release, in every mode (heap included); it also keeps one connection from
// holding more than its share. Flags: --inflight_budget_bytes, --max_reply_bytes
// (and --max_connection_budget_share, --max_reply_hold for CallReservations).
//
// Example:
//   reco::ReplyBudget budget(/*capacity_bytes=*/256 << 20, /*max_reply_bytes=*/32 << 20);
//   absl::Status s = budget.Reserve(484096);
//   if (s.ok()) { ...build and send...; budget.Release(484096); }
//
// Thread-safety: every method from any thread at once (atomics, no lock).
#ifndef ARENA_GRPC_SERVER_REPLY_BUDGET_H_
#define ARENA_GRPC_SERVER_REPLY_BUDGET_H_

#include <atomic>
#include <cstdint>

#include "absl/status/status.h"

namespace reco {

class ReplyBudget {
 public:
  ReplyBudget(uint64_t capacity_bytes, uint64_t max_reply_bytes)
      : capacity_(capacity_bytes), max_reply_(max_reply_bytes) {}

  // OK with `bytes` reserved, or RESOURCE_EXHAUSTED with nothing reserved.
  absl::Status Reserve(uint64_t bytes);
  // Gives back what one OK Reserve(bytes) took.
  void Release(uint64_t bytes);

  uint64_t capacity_bytes() const { return capacity_; }
  uint64_t max_reply_bytes() const { return max_reply_; }

  // Refusals and cancellations decided by a caller (CallReservations: a connection or
  // a client past its share, a client refused for not taking its replies, calls
  // holding their reservation too long), counted here so that the budget's figures
  // tell the whole story.
  enum class Refusal { kConnectionShare, kClientShare, kClientPenalty };
  void CountRefusal(Refusal why);
  void CountHoldCancels(uint64_t calls);

  struct Stats {
    uint64_t capacity_bytes = 0;
    uint64_t max_reply_bytes = 0;
    uint64_t in_use_bytes = 0;              // reserved now
    uint64_t peak_bytes = 0;                // most reserved at once since start or ResetPeak()
    uint64_t admitted = 0;                  // OK reservations
    uint64_t refused = 0;                   // refused reservations, whoever refused them
    uint64_t refused_connection_share = 0;  // of refused: the connection's share was spent
    uint64_t refused_client_share = 0;      // of refused: the client's share was spent
    uint64_t refused_client_penalty = 0;    // of refused: the client is refused for a while
    uint64_t cancelled_held = 0;            // admitted calls cancelled for holding too long
  };
  Stats stats() const;
  // Starts a new peak from what is reserved now (a stats window's start).
  void ResetPeak();

 private:
  const uint64_t capacity_;
  const uint64_t max_reply_;
  std::atomic<uint64_t> in_use_{0}, peak_{0}, admitted_{0}, refused_{0};
  std::atomic<uint64_t> refused_connection_share_{0}, refused_client_share_{0}, refused_client_penalty_{0};
  std::atomic<uint64_t> cancelled_held_{0};
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_REPLY_BUDGET_H_
