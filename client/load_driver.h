// LoadDriver: drives one target for one window -- warm-up, measured window, drain --
// on its own threads, with the gRPC async API (one CompletionQueue per thread).
//
//   closed loop  `concurrency` slots; each sends its next request as soon as its
//                previous one completes. Latency is timed from the send.
//   open loop    requests are scheduled at a constant `rate` (request n at
//                start + n/rate); a free slot sends every request whose time has
//                come. When every slot is busy the schedule runs on without it, so a
//                slow server shows as latency measured from the SCHEDULED time
//                (coordinated omission corrected, like wrk2); the uncorrected latency
//                (from the actual send) and the schedule lag are recorded beside it.
//
// A counted window (--total N, closed loop) has no end time: the threads share a
// budget of N calls, sent after the warm-up; a call belongs to the window when it is
// one of those N, and the window ends when the last of them completes (finished()).
// It starts with nothing in flight: at the window's start the threads let their
// warm-up calls complete and wait (warmup_drained()) until OpenWindow(), so that
// server snapshots taken in between bracket exactly the N calls.
//
// Every call goes to the request set's method with options.metadata. Every
// completion is checked (status; for Recommend, length and a sample byte for byte,
// see RequestSet). At the window's end the slots stop sending and in-flight requests are
// waited for (each has the RPC deadline), so Join() always returns.
//
// Example:
//   reco::LoadDriver driver(&link, &requests, options);
//   driver.Start(reco::WindowPlan::StartingNow(options.warmup, options.duration));
//   ... take server snapshots at the window's edges ...
//   reco::ClientFigures stats = driver.Join();
//
// Thread-safety: Start and Join from one thread; progress() from any. The link and
// request set must outlive the driver.
#ifndef ARENA_GRPC_CLIENT_LOAD_DRIVER_H_
#define ARENA_GRPC_CLIENT_LOAD_DRIVER_H_

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "client/client_figures.h"
#include "client/load_options.h"
#include "client/request_set.h"
#include "client/target_link.h"

namespace reco {

// Monotonic nanoseconds (steady_clock).
int64_t MonotonicNanos();

// When an open loop's request n is due: start_ns + n * interval_ns, or INT64_MAX
// (never) when that is past int64's range or not a number. --rate's range keeps the
// interval finite; this keeps the arithmetic defined whatever it is. start_ns, n and
// interval_ns are not negative.
//   ScheduledAt(1000, 2.5, 4)   // 1010
//   ScheduledAt(1000, std::numeric_limits<double>::infinity(), 1)  // INT64_MAX
int64_t ScheduledAt(int64_t start_ns, double interval_ns, int64_t n);

struct WindowPlan {
  int64_t start_ns = 0;          // load starts (warm-up)
  int64_t measure_start_ns = 0;  // recording starts
  int64_t measure_end_ns = 0;    // recording and sending stop

  // An infinite duration: a window with no end time (a counted one).
  static WindowPlan StartingNow(absl::Duration warmup, absl::Duration duration);
  // The window `options` ask for: by --duration, or counted (--total), or with
  // --rate and --total, total / rate long.
  static WindowPlan For(const LoadOptions& options);
};

// A counted window's start line: the driver's threads wait at it with nothing in
// flight until the run opens it (after reading the server's stats).
class WindowGate {
 public:
  void Reset(int threads);
  void Open();
  int64_t opened_ns() const { return opened_ns_; }  // MonotonicNanos() at Open()
  bool open() const { return open_.load(); }
  // Called by a thread with nothing in flight; returns once the gate is open.
  void WaitOpen();
  int waiting() const { return waiting_.load(); }
  int threads() const { return threads_; }

 private:
  std::atomic<bool> open_{false};
  std::atomic<int> waiting_{0};
  int threads_ = 0;
  int64_t opened_ns_ = 0;
};

class LoadDriver {
 public:
  LoadDriver(TargetLink* link, const RequestSet* requests, const LoadOptions& options);
  ~LoadDriver();

  void Start(const WindowPlan& plan);
  // Waits for the window and the drain; returns the threads' merged stats.
  ClientFigures Join();
  // OK responses so far in the measured window (for a progress line).
  uint64_t progress() const { return progress_.load(std::memory_order_relaxed); }
  // Every thread has ended: a counted window is over and Join() will not wait.
  bool finished() const { return threads_running_.load() == 0; }
  // Counted window: every thread has finished its warm-up calls and waits at the
  // window's start (or has ended); nothing is in flight. Then OpenWindow() lets the
  // counted calls go.
  bool warmup_drained() const;
  void OpenWindow() { gate_.Open(); }

 private:
  void RunThread(int index);

  TargetLink* link_;
  const RequestSet* requests_;
  LoadOptions options_;
  WindowPlan plan_;
  std::vector<std::thread> threads_;
  std::vector<ClientFigures> per_thread_;
  std::vector<int64_t> last_counted_ns_;  // per thread
  std::atomic<uint64_t> progress_{0};
  std::atomic<int64_t> calls_left_{0};
  std::atomic<int> threads_running_{0};
  WindowGate gate_;
};

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_LOAD_DRIVER_H_
