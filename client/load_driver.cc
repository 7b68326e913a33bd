// See load_driver.h.
#include "client/load_driver.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "grpcpp/completion_queue.h"

namespace reco {
namespace {

// One RPC in flight. The ClientContext cannot be reused, so each call is a fresh
// object; it is small next to the 100 KB response it receives.
struct Call {
  grpc::ClientContext context;
  grpc::ByteBuffer response;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
  int64_t scheduled_ns = 0;
  int64_t sent_ns = 0;
  int variant = 0;
  int slot = 0;
};

gpr_timespec MonotonicDeadline(int64_t wake_ns, int64_t now_ns) {
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_nanos(std::max<int64_t>(0, wake_ns - now_ns), GPR_TIMESPAN));
}

}  // namespace

int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

WindowPlan WindowPlan::StartingNow(absl::Duration warmup, absl::Duration duration) {
  WindowPlan p;
  p.start_ns = MonotonicNanos();
  p.measure_start_ns = p.start_ns + absl::ToInt64Nanoseconds(warmup);
  p.measure_end_ns = p.measure_start_ns + absl::ToInt64Nanoseconds(duration);
  return p;
}

LoadDriver::LoadDriver(TargetLink* link, const RequestSet* requests, const LoadOptions& options)
    : link_(link), requests_(requests), options_(options) {}

LoadDriver::~LoadDriver() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void LoadDriver::Start(const WindowPlan& plan) {
  plan_ = plan;
  progress_.store(0);
  const int threads = ResolvedThreads(options_);
  per_thread_.assign(threads, ClientFigures());
  for (int i = 0; i < threads; ++i) threads_.emplace_back(&LoadDriver::RunThread, this, i, &per_thread_[i]);
}

ClientFigures LoadDriver::Join() {
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  ClientFigures total;
  for (const ClientFigures& s : per_thread_) total.Merge(s);
  total.seconds = (plan_.measure_end_ns - plan_.measure_start_ns) / 1e9;
  return total;
}

void LoadDriver::RunThread(int index, ClientFigures* stats) {
  const int threads = static_cast<int>(per_thread_.size());
  const bool open_loop = options_.open_loop();
  const int64_t measure_start = plan_.measure_start_ns;
  const int64_t measure_end = plan_.measure_end_ns;
  const int64_t rpc_deadline_ns = absl::ToInt64Nanoseconds(options_.rpc_deadline);
  grpc::CompletionQueue cq;
  uint64_t variant_counter = static_cast<uint64_t>(index);
  uint64_t completions = 0;
  bool verified_first = false;

  auto issue = [&](int slot, int64_t scheduled_ns) {
    auto* call = new Call;
    call->slot = slot;
    call->scheduled_ns = scheduled_ns;
    call->variant = static_cast<int>(variant_counter++ % requests_->size());
    call->context.set_deadline(
        gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_nanos(rpc_deadline_ns, GPR_TIMESPAN)));
    call->reader = link_->stub(slot).PrepareUnaryCall(&call->context, kRecommendMethod,
                                                      requests_->request(call->variant), &cq);
    call->sent_ns = MonotonicNanos();
    if (call->sent_ns >= measure_start && call->sent_ns < measure_end) ++stats->sent;
    if (open_loop && scheduled_ns >= measure_start && scheduled_ns < measure_end) {
      stats->schedule_lag.Record(static_cast<uint64_t>(std::max<int64_t>(0, call->sent_ns - scheduled_ns)));
    }
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, call);
  };

  // Records a finished call when it belongs to the window; returns its slot.
  auto complete = [&](Call* call) {
    const int64_t now = MonotonicNanos();
    const int slot = call->slot;
    const bool counted = open_loop ? (call->scheduled_ns >= measure_start && call->scheduled_ns < measure_end)
                                   : (now >= measure_start && now < measure_end);
    if (counted) {
      ++stats->completed;
      if (!call->status.ok()) {
        int code = static_cast<int>(call->status.error_code());
        ++stats->errors_by_code[std::clamp(code, 1, ClientFigures::kStatusCodes - 1)];
      } else {
        const bool sample = !verified_first || ++completions % static_cast<uint64_t>(options_.verify_every) == 0;
        if (sample) {
          verified_first = true;
          ++stats->verified;
        }
        switch (requests_->Check(call->variant, &call->response, sample)) {
          case ReplyCheck::kWrongItemCount:
            ++stats->wrong_item_count;
            break;
          case ReplyCheck::kWrongContent:
            ++stats->wrong_content;
            break;
          case ReplyCheck::kRight:
            ++stats->ok;
            stats->response_bytes += call->response.Length();
            stats->latency.Record(static_cast<uint64_t>(now - (open_loop ? call->scheduled_ns : call->sent_ns)));
            if (open_loop) stats->latency_uncorrected.Record(static_cast<uint64_t>(now - call->sent_ns));
            progress_.fetch_add(1, std::memory_order_relaxed);
            break;
        }
      }
    }
    delete call;
    return slot;
  };

  std::vector<int> free_slots;
  for (int s = index; s < options_.concurrency; s += threads) free_slots.push_back(s);
  int in_flight = 0;
  void* tag;
  bool ok;

  if (!open_loop) {
    for (int slot : free_slots) issue(slot, MonotonicNanos());
    in_flight = static_cast<int>(free_slots.size());
    while (in_flight > 0 && cq.Next(&tag, &ok)) {
      int slot = complete(static_cast<Call*>(tag));
      --in_flight;
      const int64_t now = MonotonicNanos();
      if (now < measure_end) {
        issue(slot, now);
        ++in_flight;
      }
    }
  } else {
    // Request n (all threads together) is due at start + n * interval; this thread
    // sends n = index, index + threads, ...
    const double interval_ns = 1e9 / options_.rate;
    auto due = [&](int64_t n) { return plan_.start_ns + static_cast<int64_t>(static_cast<double>(n) * interval_ns); };
    // A backlog left at the window's end is still sent (its delay is the point of
    // measuring from the schedule), but only for this long: a client far behind
    // would otherwise take many windows to catch up. What is left is `unsent`.
    const int64_t backlog_end = measure_end + 1000000000;
    int64_t n = index;
    while (true) {
      int64_t now = MonotonicNanos();
      while (!free_slots.empty() && due(n) <= now && due(n) < measure_end && now < backlog_end) {
        int slot = free_slots.back();
        free_slots.pop_back();
        issue(slot, due(n));
        ++in_flight;
        n += threads;
      }
      const bool schedule_done = due(n) >= measure_end || now >= backlog_end;
      if (schedule_done && in_flight == 0) break;
      // Wake for the next due request when a slot is free; otherwise only a
      // completion can let anything happen (calls end by their deadline at worst).
      const int64_t wake = (!free_slots.empty() && !schedule_done) ? due(n) : now + 1000000000;
      grpc::CompletionQueue::NextStatus next = cq.AsyncNext(&tag, &ok, MonotonicDeadline(wake, now));
      if (next == grpc::CompletionQueue::SHUTDOWN) break;
      if (next == grpc::CompletionQueue::GOT_EVENT) {
        free_slots.push_back(complete(static_cast<Call*>(tag)));
        --in_flight;
      }
    }
    // Requests of this thread that were due inside the window, and those never sent.
    for (int64_t k = index;; k += threads) {
      const int64_t at = due(k);
      if (at >= measure_end) break;
      if (at >= measure_start) {
        ++stats->scheduled;
        if (k >= n) ++stats->unsent;
      }
    }
  }
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) delete static_cast<Call*>(tag);
}

}  // namespace reco
