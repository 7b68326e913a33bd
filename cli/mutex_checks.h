// abseil's Mutex deadlock detector, off unless asked for: reco_server and reco_load
// call ApplyMutexDeadlockDetectionFlag() after parsing their flags.
//
// Why: Debian's libabsl is built without NDEBUG, so its absl::Mutex keeps the
// detector on by default -- every Lock() looks the mutex up in a global graph and
// every destroyed mutex is removed from it. gRPC 1.51's own locks are absl::Mutex, so
// every call takes those detours (docs/FINDINGS.md has what a paired run of the
// service saw; a release build of abseil leaves the detector off). A service of yours on Debian's
// packages can make the same call in its main:
//   absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
//
//   int main(int argc, char** argv) {
//     reco::ParseFlagsOrExit2(argc, argv, "reco_server", "...");
//     reco::ApplyMutexDeadlockDetectionFlag();   // --mutex_deadlock_detection, default off
//     ...
//   }
//
// Thread-safety: call from main before other threads lock an absl::Mutex.
#ifndef ARENA_GRPC_CLI_MUTEX_CHECKS_H_
#define ARENA_GRPC_CLI_MUTEX_CHECKS_H_

namespace reco {

// true: abseil's detector aborts the process on a lock-order cycle (its debug-build
// default); false: no detection (its release-build default).
void SetMutexDeadlockDetection(bool on);

// SetMutexDeadlockDetection(--mutex_deadlock_detection).
void ApplyMutexDeadlockDetectionFlag();

}  // namespace reco

#endif  // ARENA_GRPC_CLI_MUTEX_CHECKS_H_
