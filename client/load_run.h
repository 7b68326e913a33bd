// RunLoad: one whole reco_load run -- probe every target, then drive them one at a
// time in interleaved rounds (A B C, A B C, ...), reading each target's ServerStats
// at the edges of every measured window -- and the RunReport it makes.
//
// Fail fast: every target is probed (client/target_probe.h: connect, one Recommend
// checked byte for byte) with options.probe_deadline before any load is sent; an
// unreachable or wrong target ends the run with UNAVAILABLE / the probe's status
// naming it. A target without a ServerStats service is still measured, client side
// only, with a warning.
// With options.align_start, the first warm-up waits for the next multiple of it on
// the wall clock, after the probes (distributed load: processes measure together).
//
// Example:
//   absl::StatusOr<reco::RunReport> report = reco::RunLoad(options, "reco_load ...", nullptr);
//   if (!report.ok()) { /* report.status().message() names the target */ }
//
// Thread-safety: RunLoad may be called from any thread; it blocks for the whole run
// (rounds * targets * (warmup + duration), plus drains). `progress`, when given, is
// called on the calling thread with a one-line status a few times a second.
#ifndef ARENA_GRPC_CLIENT_LOAD_RUN_H_
#define ARENA_GRPC_CLIENT_LOAD_RUN_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "client/load_options.h"
#include "client/run_report.h"

namespace reco {

using ProgressSink = std::function<void(const std::string& line)>;

absl::StatusOr<RunReport> RunLoad(const LoadOptions& options, const std::string& command_line,
                                  const ProgressSink& progress);

// The first request a run with these options sends (for --call, the first of the
// user's requests), as a gRPC message on the wire:
// a 0 byte (uncompressed), the 4-byte big-endian length, the serialized request.
// h2load -d sends it, for comparing reco_load with a third-party client.
std::string GrpcFramedRequest(const LoadOptions& options);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_LOAD_RUN_H_
