// AddTargetWarnings: what a reader of one target's figures must know before trusting
// them, as one-line warnings for the report: its errors by code, an open loop that
// fell behind its schedule, a replica served well under its share, server-side
// figures missing or qualified, allocations the server could not count. (Disturbed
// rounds and a busy client are the noise guard's: client/noise_guard.h.)
//
// Example:
//   for (const reco::TargetResult& t : report.targets) reco::AddTargetWarnings(report, t, &report.warnings);
//   // "heap: 3 errors of 9000 (DEADLINE_EXCEEDED 3)"
//
// Thread-safety: a pure function of its arguments.
#ifndef ARENA_GRPC_CLIENT_TARGET_WARNINGS_H_
#define ARENA_GRPC_CLIENT_TARGET_WARNINGS_H_

#include <string>
#include <vector>

#include "client/run_report.h"

namespace reco {

// Above this p99 lag an open loop is not keeping its schedule: the rate asked for is
// not the rate the server saw (the corrected latency still tells the truth).
inline constexpr int64_t kLagWarningNanos = 10'000'000;

void AddTargetWarnings(const RunReport& report, const TargetResult& target, std::vector<std::string>* warnings);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_TARGET_WARNINGS_H_
