// See drain.h.
#include "server/drain.h"

#include <unistd.h>

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"

namespace reco {

absl::Status CheckDrainOptions(const DrainOptions& o) {
  for (auto [name, d] : {std::pair{"shutdown_drain_delay", o.drain_delay}, std::pair{"shutdown_deadline", o.deadline},
                         std::pair{"shutdown_hard_deadline", o.hard_deadline}}) {
    if (d < absl::ZeroDuration() || d > absl::Hours(1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, "=", absl::FormatDuration(d), " is out of range [0, 1h]"));
    }
  }
  if (o.hard_deadline <= o.drain_delay + o.deadline) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shutdown_hard_deadline=", absl::FormatDuration(o.hard_deadline),
                     " must be longer than --shutdown_drain_delay + --shutdown_deadline (",
                     absl::FormatDuration(o.drain_delay + o.deadline), "): it bounds the whole stop"));
  }
  return absl::OkStatus();
}

ShutdownWatchdog::ShutdownWatchdog(absl::Duration hard_deadline)
    : thread_([this, hard_deadline] { Run(hard_deadline); }) {}

ShutdownWatchdog::~ShutdownWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    disarmed_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void ShutdownWatchdog::Run(absl::Duration hard_deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (cv_.wait_for(lock, absl::ToChronoNanoseconds(hard_deadline), [this] { return disarmed_; })) return;
  // Past the hard deadline: no summary, no destructors (they may be what hangs).
  const std::string line =
      absl::StrCat("reco_server: stop exceeded --shutdown_hard_deadline=", absl::FormatDuration(hard_deadline),
                   " while ", phase_.load(), "; exiting with status ", kExitHardDeadline, " without a summary\n");
  (void)!write(STDERR_FILENO, line.data(), line.size());
  _exit(kExitHardDeadline);
}

void Drain(RecoServer& server, const DrainOptions& options, ShutdownWatchdog* watchdog) {
  auto phase = [watchdog](const char* p) {
    if (watchdog != nullptr) watchdog->SetPhase(p);
  };
  phase("draining (NOT_SERVING, still serving)");
  server.BeginDrain();
  std::this_thread::sleep_for(absl::ToChronoNanoseconds(options.drain_delay));
  phase("in gRPC's Shutdown (calls in flight; cancelled at --shutdown_deadline)");
  server.Shutdown(options.deadline);
  phase("waiting for gRPC to release the calls");
  server.Wait();
  phase("printing the summary and freeing the server");
}

}  // namespace reco
