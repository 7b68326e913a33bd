// See load_driver.h.
#include "client/load_driver.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <set>
#include <thread>

#include "absl/random/random.h"
#include "client/request_template.h"
#include "grpcpp/completion_queue.h"

namespace reco {
namespace {

struct Call;

// A completion's tag: its call, and whether it is the call's write (a stream has a
// write and a read in flight at once, so that neither side waits for the other).
struct CallTag {
  Call* call;
  bool write;
};

// One RPC in flight. The ClientContext cannot be reused, so each call is a fresh
// object; it is small next to the response it receives.
struct Call {
  grpc::ClientContext context;
  grpc::ByteBuffer response;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
  // A streaming call: its stream, the messages it sends (the set's, or its own from
  // --data's placeholders), how far it got each way, and what it has read so far.
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> stream;
  std::vector<grpc::ByteBuffer> own_messages;
  const std::vector<grpc::ByteBuffer>* messages = nullptr;
  size_t written = 0;
  bool started = false;
  bool writing = false;      // a write (or the half-close) is in flight
  bool half_closed = false;  // an empty stream's WritesDone was sent
  bool reads_done = false;   // the server's messages have ended
  bool finishing = false;    // Finish is in flight: its completion ends the call
  uint64_t received = 0;
  uint64_t stream_bytes = 0;
  int64_t first_message_ns = 0;
  int64_t scheduled_ns = 0;
  int64_t sent_ns = 0;
  int variant = 0;
  int slot = 0;
  bool counted = false;           // one of --total's calls (a counted window)
  CallTag read_tag{this, false};  // start, reads, Finish, and a unary call's end
  CallTag write_tag{this, true};
};

gpr_timespec MonotonicDeadline(int64_t wake_ns, int64_t now_ns) {
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_nanos(std::max<int64_t>(0, wake_ns - now_ns), GPR_TIMESPAN));
}

// A backlog left at the window's end is still sent (its delay is the point of
// measuring from the schedule), but only for this long: a client far behind would
// otherwise take many windows to catch up. What is left is `unsent`.
constexpr int64_t kBacklogGraceNanos = 1'000'000'000;

// One driver thread: its share of the slots (index, index + threads, ...), its own
// completion queue and its own stats, merged by Join() after the thread ends.
class SlotLoop {
 public:
  SlotLoop(TargetLink* link, const RequestSet* requests, const LoadOptions& options, const WindowPlan& plan, int index,
           int threads, ClientFigures* stats, std::atomic<uint64_t>* progress, std::atomic<int64_t>* calls_left,
           int64_t* last_counted_ns, WindowGate* gate)
      : link_(link),
        requests_(requests),
        options_(options),
        plan_(plan),
        index_(index),
        threads_(threads),
        stats_(stats),
        progress_(progress),
        calls_left_(calls_left),
        last_counted_ns_(last_counted_ns),
        gate_(gate),
        rpc_deadline_ns_(absl::ToInt64Nanoseconds(options.rpc_deadline)),
        interval_ns_(options.open_loop() ? 1e9 / options.rate : 0),
        variant_counter_(static_cast<uint64_t>(index)) {
    for (const auto& [key, value] : options.metadata) {
      absl::StatusOr<RequestTemplate> t = RequestTemplate::Parse(value, key);  // checked with the flags
      if (t.ok() && t->has_placeholders()) {
        templated_metadata_.emplace_back(key, *std::move(t));
      } else {
        plain_metadata_.emplace_back(key, value);
      }
    }
    for (int s = index; s < options.concurrency; s += threads) free_slots_.push_back(s);
  }

  // Runs the window and its drain, then empties the queue.
  void Run() {
    if (options_.open_loop()) {
      RunOpenLoop();
    } else {
      RunClosedLoop();
    }
    cq_.Shutdown();
    void* tag;
    bool ok;
    std::set<Call*> left;  // a call may have two events left: freed once, after
    while (cq_.Next(&tag, &ok)) left.insert(static_cast<CallTag*>(tag)->call);
    for (Call* call : left) delete call;
  }

 private:
  bool InWindow(int64_t t) const { return t >= plan_.measure_start_ns && t < plan_.measure_end_ns; }

  // In a counted window (--total), whether this thread may send one more call now:
  // during the warm-up always (uncounted), in the window while the run's shared
  // budget lasts.
  bool MaySend(int64_t now, bool* counted) {
    *counted = false;
    if (!options_.counted()) return now < plan_.measure_end_ns;
    if (now < plan_.measure_start_ns) return true;
    *counted = calls_left_->fetch_sub(1, std::memory_order_relaxed) > 0;
    return *counted;
  }

  void Issue(int slot, int64_t scheduled_ns, bool counted = false) {
    auto* call = new Call;
    call->counted = counted;
    call->slot = slot;
    call->scheduled_ns = scheduled_ns;
    call->variant = static_cast<int>(variant_counter_++ % requests_->size());
    call->context.set_deadline(
        gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_nanos(rpc_deadline_ns_, GPR_TIMESPAN)));
    for (const auto& [key, value] : plain_metadata_) call->context.AddMetadata(key, value);
    if (options_.compression != GRPC_COMPRESS_NONE) call->context.set_compression_algorithm(options_.compression);
    grpc::ByteBuffer templated;  // this call's own request, from --data's placeholders
    std::string rendered;
    if (options_.call.render_request || !templated_metadata_.empty()) {
      const uint64_t number = options_.call_numbers->fetch_add(1, std::memory_order_relaxed);
      const absl::Time now = absl::Now();
      for (const auto& [key, value] : templated_metadata_)
        call->context.AddMetadata(key, value.Render(number, now, rng_));
      if (options_.call.render_request) {
        rendered = options_.call.render_request(number, now, rng_);
        grpc::Slice slice(rendered);
        templated = grpc::ByteBuffer(&slice, 1);
      }
    }
    const grpc::ByteBuffer& request = options_.call.render_request ? templated : requests_->request(call->variant);
    if (requests_->streaming()) {
      call->messages = &requests_->request_stream(call->variant);
      if (options_.call.render_request) {
        call->own_messages = requests_->client_streaming() ? RequestSet::StreamMessages(rendered)
                                                           : std::vector<grpc::ByteBuffer>{templated};
        call->messages = &call->own_messages;
      }
      call->stream = link_->stub(slot).PrepareCall(&call->context, requests_->method(), &cq_);
    } else {
      call->reader = link_->stub(slot).PrepareUnaryCall(&call->context, requests_->method(), request, &cq_);
    }
    call->sent_ns = MonotonicNanos();
    // A counted window's calls are the counted ones: a warm-up call whose send
    // straddles the window's start is not one of them.
    if (options_.counted() ? counted : InWindow(call->sent_ns)) ++stats_->sent;
    if (options_.open_loop() && InWindow(scheduled_ns)) {
      stats_->schedule_lag.Record(static_cast<uint64_t>(std::max<int64_t>(0, call->sent_ns - scheduled_ns)));
    }
    if (call->stream) {
      call->stream->StartCall(&call->read_tag);
      return;
    }
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, &call->read_tag);
  }

  // Takes a streaming call one step on: once started, it writes its messages (the
  // last one half-closes) while it reads the server's until they end, then
  // finishes; true once its status is in, as a unary call's completion is. A unary
  // call is done at its one completion.
  bool Done(const CallTag& tag, bool ok) {
    Call* call = tag.call;
    if (!call->stream || call->finishing) return true;
    if (tag.write) {
      call->writing = false;
      if (ok) WriteNext(call);
    } else if (!call->started) {
      call->started = true;
      call->reads_done = !ok;  // a call that did not start: Finish says why
      if (ok) {
        WriteNext(call);
        call->stream->Read(&call->response, &call->read_tag);
      }
    } else if (ok) {
      if (call->received++ == 0) call->first_message_ns = MonotonicNanos();
      call->stream_bytes += call->response.Length();
      call->response.Clear();
      call->stream->Read(&call->response, &call->read_tag);
    } else {
      call->reads_done = true;
    }
    if (call->reads_done && !call->writing) {
      call->finishing = true;
      call->stream->Finish(&call->status, &call->read_tag);
    }
    return false;
  }

  // The call's next message (the last with the half-close), or an empty stream's
  // half-close; nothing once all are out.
  static void WriteNext(Call* call) {
    const std::vector<grpc::ByteBuffer>& messages = *call->messages;
    if (call->written < messages.size()) {
      const bool last = call->written + 1 == messages.size();
      call->writing = true;
      call->stream->Write(messages[call->written++],
                          last ? grpc::WriteOptions().set_last_message() : grpc::WriteOptions(), &call->write_tag);
    } else if (messages.empty() && !call->half_closed) {
      call->half_closed = call->writing = true;
      call->stream->WritesDone(&call->write_tag);
    }
  }

  // Whether a call finishing at `now` belongs to the window: by its schedule in an
  // open loop, by being one of --total's calls in a counted one, else by its end --
  // or, failed, by having been in flight when the window ended: a server that stops
  // answering fails its calls at their deadline, after a window shorter than it, and
  // those failures are the window's (before, such a run reported 0 errors, exit 0).
  bool Measured(const Call& call, int64_t now) const {
    if (options_.counted()) return call.counted;
    if (options_.open_loop()) return InWindow(call.scheduled_ns);
    return InWindow(now) || (!call.status.ok() && now >= plan_.measure_end_ns && call.sent_ns < plan_.measure_end_ns);
  }

  // Records a finished call when it belongs to the window; frees it and returns its
  // slot.
  int Complete(Call* call) {
    const int64_t now = MonotonicNanos();
    const int slot = call->slot;
    if (call->counted) *last_counted_ns_ = now;
    if (Measured(*call, now)) {
      ++stats_->completed;
      if (!call->status.ok()) {
        const int code = static_cast<int>(call->status.error_code());
        ++stats_->errors_by_code[std::clamp(code, 1, ClientFigures::kStatusCodes - 1)];
      } else {
        RecordReply(*call, now);
      }
    }
    delete call;
    return slot;
  }

  // Checks an OK reply (its length always, its bytes on the first and every
  // verify_every-th) and records it.
  void RecordReply(Call& call, int64_t now) {
    const bool sample = requests_->checks_replies() &&
                        (!verified_first_ || ++completions_ % static_cast<uint64_t>(options_.verify_every) == 0);
    if (sample) {
      verified_first_ = true;
      ++stats_->verified;
    }
    switch (requests_->Check(call.variant, &call.response, sample)) {
      case ReplyCheck::kWrongItemCount:
        ++stats_->wrong_item_count;
        return;
      case ReplyCheck::kWrongContent:
        ++stats_->wrong_content;
        return;
      case ReplyCheck::kRight:
        break;
    }
    const bool open_loop = options_.open_loop();
    const int64_t from = open_loop ? call.scheduled_ns : call.sent_ns;
    ++stats_->ok;
    stats_->response_bytes += call.stream ? call.stream_bytes : call.response.Length();
    if (requests_->server_streaming()) {
      stats_->streaming = true;
      stats_->messages += call.received;
      if (call.received > 0) stats_->first_message.Record(static_cast<uint64_t>(call.first_message_ns - from));
    }
    stats_->latency.Record(static_cast<uint64_t>(now - from));
    if (open_loop) stats_->latency_uncorrected.Record(static_cast<uint64_t>(now - call.sent_ns));
    progress_->fetch_add(1, std::memory_order_relaxed);
  }

  // Every slot sends again as soon as its call completes, until the window ends.
  // In a counted window, until the run's `total` calls are sent. A counted window
  // starts with nothing in flight: at its start each slot parks until the thread's
  // warm-up calls have all completed and the driver says go (after the server's
  // snapshot), so the server's window holds exactly the counted calls.
  void RunClosedLoop() {
    int in_flight = 0;
    std::vector<int> parked;
    auto next = [&](int slot) {
      bool counted = false;
      const int64_t now = MonotonicNanos();
      if (options_.counted() && now >= plan_.measure_start_ns && !gate_->open()) {
        parked.push_back(slot);
      } else if (MaySend(now, &counted)) {
        Issue(slot, now, counted);
        ++in_flight;
      }
    };
    for (int slot : free_slots_) next(slot);
    void* tag;
    bool ok;
    while (true) {
      if (in_flight == 0) {
        if (parked.empty()) break;
        gate_->WaitOpen();
        std::vector<int> slots;
        slots.swap(parked);
        for (int slot : slots) next(slot);
        if (in_flight == 0) break;
      }
      if (!cq_.Next(&tag, &ok)) break;
      const CallTag& done = *static_cast<CallTag*>(tag);
      if (!Done(done, ok)) continue;
      const int slot = Complete(done.call);
      --in_flight;
      next(slot);
    }
  }

  // Request n (all threads together) is due at start + n * interval; this thread
  // sends n = index, index + threads, ...
  int64_t Due(int64_t n) const { return ScheduledAt(plan_.start_ns, interval_ns_, n); }

  void RunOpenLoop() {
    const int64_t measure_end = plan_.measure_end_ns;
    const int64_t backlog_end = measure_end + kBacklogGraceNanos;
    int64_t n = index_;
    int in_flight = 0;
    while (true) {
      const int64_t now = MonotonicNanos();
      while (!free_slots_.empty() && Due(n) <= now && Due(n) < measure_end && now < backlog_end) {
        const int slot = free_slots_.back();
        free_slots_.pop_back();
        Issue(slot, Due(n));
        ++in_flight;
        n += threads_;
      }
      const bool schedule_done = Due(n) >= measure_end || now >= backlog_end;
      if (schedule_done && in_flight == 0) break;
      // Wake for the next due request when a slot is free; otherwise only a
      // completion can let anything happen (calls end by their deadline at worst).
      const int64_t wake = (!free_slots_.empty() && !schedule_done) ? Due(n) : now + 1'000'000'000;
      void* tag;
      bool ok;
      const grpc::CompletionQueue::NextStatus next = cq_.AsyncNext(&tag, &ok, MonotonicDeadline(wake, now));
      if (next == grpc::CompletionQueue::SHUTDOWN) break;
      if (next == grpc::CompletionQueue::GOT_EVENT) {
        const CallTag& done = *static_cast<CallTag*>(tag);
        if (!Done(done, ok)) continue;
        free_slots_.push_back(Complete(done.call));
        --in_flight;
      }
    }
    CountSchedule(n);
  }

  // This thread's requests that were due inside the window, and of those the ones
  // never sent (from `first_unsent` on).
  void CountSchedule(int64_t first_unsent) {
    for (int64_t k = index_;; k += threads_) {
      const int64_t at = Due(k);
      if (at >= plan_.measure_end_ns) break;
      if (at >= plan_.measure_start_ns) {
        ++stats_->scheduled;
        if (k >= first_unsent) ++stats_->unsent;
      }
    }
  }

  TargetLink* const link_;
  const RequestSet* const requests_;
  const LoadOptions& options_;
  const WindowPlan plan_;
  const int index_;
  const int threads_;
  ClientFigures* const stats_;
  std::atomic<uint64_t>* const progress_;
  std::atomic<int64_t>* const calls_left_;  // counted window: the run's calls not yet claimed
  int64_t* const last_counted_ns_;          // when this thread's last counted call ended
  WindowGate* const gate_;                  // counted window: when its calls may go
  const int64_t rpc_deadline_ns_;
  const double interval_ns_;  // open loop: between two requests of all threads together
  grpc::CompletionQueue cq_;
  std::vector<int> free_slots_;
  uint64_t variant_counter_;
  // --metadata values without and with placeholders (client/request_template.h).
  std::vector<std::pair<std::string, std::string>> plain_metadata_;
  std::vector<std::pair<std::string, RequestTemplate>> templated_metadata_;
  absl::BitGen rng_;  // for {{.UUID}}
  uint64_t completions_ = 0;
  bool verified_first_ = false;
};

}  // namespace

int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t ScheduledAt(int64_t start_ns, double interval_ns, int64_t n) {
  const double offset = static_cast<double>(n) * interval_ns;
  // A double at or past 2^63 converts to int64 undefined (an infinite interval made a
  // due time in the past: the loop sent at once, then spun). `room` as a double may
  // round up, by half a step at most; an offset below it is still a step below, so
  // the sum fits.
  const double room = static_cast<double>(std::numeric_limits<int64_t>::max() - start_ns);
  if (!(offset < room)) return std::numeric_limits<int64_t>::max();  // NaN (0 x inf) too
  return start_ns + static_cast<int64_t>(offset);
}

WindowPlan WindowPlan::StartingNow(absl::Duration warmup, absl::Duration duration) {
  WindowPlan p;
  p.start_ns = MonotonicNanos();
  p.measure_start_ns = p.start_ns + absl::ToInt64Nanoseconds(warmup);
  p.measure_end_ns = duration == absl::InfiniteDuration() ? std::numeric_limits<int64_t>::max()
                                                          : p.measure_start_ns + absl::ToInt64Nanoseconds(duration);
  return p;
}

LoadDriver::LoadDriver(TargetLink* link, const RequestSet* requests, const LoadOptions& options)
    : link_(link), requests_(requests), options_(options) {}

LoadDriver::~LoadDriver() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

WindowPlan WindowPlan::For(const LoadOptions& options) {
  if (options.counted()) return StartingNow(options.warmup, absl::InfiniteDuration());
  if (options.open_loop() && options.total > 0) {
    return StartingNow(options.warmup, absl::Seconds(static_cast<double>(options.total) / options.rate));
  }
  return StartingNow(options.warmup, options.duration);
}

void LoadDriver::Start(const WindowPlan& plan) {
  plan_ = plan;
  progress_.store(0);
  calls_left_.store(options_.total);
  gate_.Reset(ResolvedThreads(options_));
  threads_running_.store(ResolvedThreads(options_));
  const int threads = ResolvedThreads(options_);
  per_thread_.assign(threads, ClientFigures());
  last_counted_ns_.assign(threads, 0);
  for (int i = 0; i < threads; ++i) threads_.emplace_back(&LoadDriver::RunThread, this, i);
}

ClientFigures LoadDriver::Join() {
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  ClientFigures total;
  for (const ClientFigures& s : per_thread_) total.Merge(s);
  // A counted window runs from the gate's opening to its last call's end.
  const int64_t start = options_.counted() ? gate_.opened_ns() : plan_.measure_start_ns;
  const int64_t end =
      options_.counted() ? *std::max_element(last_counted_ns_.begin(), last_counted_ns_.end()) : plan_.measure_end_ns;
  total.seconds = std::max<int64_t>(0, end - start) / 1e9;
  return total;
}

void WindowGate::Reset(int threads) {
  open_.store(false);
  opened_ns_ = 0;
  waiting_.store(0);
  threads_ = threads;
}

void WindowGate::WaitOpen() {
  waiting_.fetch_add(1);
  while (!open()) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void WindowGate::Open() {
  opened_ns_ = MonotonicNanos();
  open_.store(true);  // publishes opened_ns_ to the threads that see it open
}

bool LoadDriver::warmup_drained() const {
  return gate_.waiting() + (gate_.threads() - threads_running_.load()) >= gate_.threads();
}

void LoadDriver::RunThread(int index) {
  SlotLoop(link_, requests_, options_, plan_, index, static_cast<int>(per_thread_.size()), &per_thread_[index],
           &progress_, &calls_left_, &last_counted_ns_[index], &gate_)
      .Run();
  threads_running_.fetch_sub(1);
}

}  // namespace reco
