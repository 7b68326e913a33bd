// See mutex_checks.h.
#include "cli/mutex_checks.h"

#include "absl/flags/flag.h"
#include "absl/synchronization/mutex.h"

ABSL_FLAG(bool, mutex_deadlock_detection, false,
          "Run abseil's Mutex deadlock detector on every lock, gRPC's included (Debian's abseil turns it on "
          "by default; every lock then also updates its lock graph). Off: as a release build of abseil.");

namespace reco {

void SetMutexDeadlockDetection(bool on) {
  absl::SetMutexDeadlockDetectionMode(on ? absl::OnDeadlockCycle::kAbort : absl::OnDeadlockCycle::kIgnore);
}

void ApplyMutexDeadlockDetectionFlag() { SetMutexDeadlockDetection(absl::GetFlag(FLAGS_mutex_deadlock_detection)); }

}  // namespace reco
