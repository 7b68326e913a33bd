// Drain: how reco_server stops on SIGTERM/SIGINT without failing calls it accepted,
// and the watchdog that bounds the whole stop even when they cannot finish.
//
// The order (Drain below):
//   1. health NOT_SERVING, and calls are still served for `drain_delay`;
//   2. grpc::Server::Shutdown(now + deadline): GOAWAY, new calls get UNAVAILABLE,
//      calls a handler has started run to the deadline, then are cancelled;
//   3. Wait() for gRPC to release them.
// Why step 1 serves on: gRPC 1.51's Shutdown cancels (CANCELLED, RST_STREAM) every
// call its transport has accepted but not yet handed to a handler -- headers or the
// request still arriving, or queued -- and the client cannot retry those (they are
// below GOAWAY's last stream id). Without step 1, calls sent just before SIGTERM were
// CANCELLED; with it none are (lifecycle_drain_test; docs/server.md). A call that
// arrives after step 2 began but before its client read the GOAWAY is still
// CANCELLED rather than UNAVAILABLE: gRPC 1.51 offers no GOAWAY without that.
//
// Step 3 has no bound in gRPC: after the deadline, replies stuck behind a client's
// flow control kept Shutdown waiting long past it (docs/server.md, "Stopping").
// ShutdownWatchdog bounds the stop:
//
//   reco::ShutdownWatchdog watchdog(options.hard_deadline);   // at the signal
//   reco::Drain(*server, options, &watchdog);
//   ...print the summary, destroy the server...
//   // watchdog's destructor disarms it; past hard_deadline it _exit()s with
//   // kExitHardDeadline and one line on stderr naming the phase it cut short.
//
// Thread-safety: Drain from one thread (main's); the watchdog runs its own thread.
#ifndef ARENA_GRPC_SERVER_DRAIN_H_
#define ARENA_GRPC_SERVER_DRAIN_H_

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/reco_server.h"

namespace reco {

// reco_server's exit status when the watchdog ends the stop (0 clean, 1 cannot
// listen, 2 bad flags).
inline constexpr int kExitHardDeadline = 3;

struct DrainOptions {
  absl::Duration drain_delay = absl::Seconds(1);     // --shutdown_drain_delay
  absl::Duration deadline = absl::Seconds(5);        // --shutdown_deadline
  absl::Duration hard_deadline = absl::Seconds(10);  // --shutdown_hard_deadline, from the signal
};

// drain_delay and deadline in [0, 1h]; hard_deadline longer than the two together
// (and at most 1h). The message names the flag.
absl::Status CheckDrainOptions(const DrainOptions& options);

class ShutdownWatchdog {
 public:
  explicit ShutdownWatchdog(absl::Duration hard_deadline);
  ~ShutdownWatchdog();  // disarms
  // What the stop is doing now, for the watchdog's line. A string literal.
  void SetPhase(const char* phase) { phase_.store(phase); }

  ShutdownWatchdog(const ShutdownWatchdog&) = delete;
  ShutdownWatchdog& operator=(const ShutdownWatchdog&) = delete;

 private:
  void Run(absl::Duration hard_deadline);

  std::atomic<const char*> phase_{"starting the stop"};
  std::mutex mu_;
  std::condition_variable cv_;
  bool disarmed_ = false;
  std::thread thread_;  // last: starts after the members it reads
};

// Steps 1-3 above. `watchdog` may be null.
void Drain(RecoServer& server, const DrainOptions& options, ShutdownWatchdog* watchdog);

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_DRAIN_H_
