// See reply_budget.h.
#include "server/reply_budget.h"

#include "absl/strings/str_cat.h"

namespace reco {
namespace {

std::string MiB(uint64_t bytes) { return absl::StrCat(bytes / (1024 * 1024), " MiB"); }

}  // namespace

absl::Status ReplyBudget::Reserve(uint64_t bytes) {
  if (bytes > max_reply_) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return absl::ResourceExhaustedError(absl::StrCat("this reply would hold about ", bytes,
                                                     " bytes, over the per-reply cap of ", max_reply_,
                                                     " (--max_reply_bytes): ask for fewer items"));
  }
  uint64_t used = in_use_.load(std::memory_order_relaxed);
  do {
    if (used + bytes > capacity_) {
      refused_.fetch_add(1, std::memory_order_relaxed);
      return absl::ResourceExhaustedError(
          absl::StrCat("the server's budget for replies in flight is spent (", MiB(used), " of ", MiB(capacity_),
                       " reserved, this reply needs ", bytes, " bytes; --inflight_budget_bytes): retry later"));
    }
  } while (!in_use_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  admitted_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t now = used + bytes;
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return absl::OkStatus();
}

void ReplyBudget::Release(uint64_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }

void ReplyBudget::CountRefusal(Refusal why) {
  refused_.fetch_add(1, std::memory_order_relaxed);
  switch (why) {
    case Refusal::kConnectionShare:
      refused_connection_share_.fetch_add(1, std::memory_order_relaxed);
      break;
    case Refusal::kClientShare:
      refused_client_share_.fetch_add(1, std::memory_order_relaxed);
      break;
    case Refusal::kClientPenalty:
      refused_client_penalty_.fetch_add(1, std::memory_order_relaxed);
      break;
  }
}

void ReplyBudget::CountHoldCancels(uint64_t calls) { cancelled_held_.fetch_add(calls, std::memory_order_relaxed); }

ReplyBudget::Stats ReplyBudget::stats() const {
  Stats s;
  s.capacity_bytes = capacity_;
  s.max_reply_bytes = max_reply_;
  s.in_use_bytes = in_use_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_.load(std::memory_order_relaxed);
  s.admitted = admitted_.load(std::memory_order_relaxed);
  s.refused = refused_.load(std::memory_order_relaxed);
  s.refused_connection_share = refused_connection_share_.load(std::memory_order_relaxed);
  s.refused_client_share = refused_client_share_.load(std::memory_order_relaxed);
  s.refused_client_penalty = refused_client_penalty_.load(std::memory_order_relaxed);
  s.cancelled_held = cancelled_held_.load(std::memory_order_relaxed);
  return s;
}

void ReplyBudget::ResetPeak() { peak_.store(in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace reco
