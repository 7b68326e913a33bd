// FormatStatsSummary: one screen of text from a StatsSnapshot -- what reco_server
// prints when it stops, so a run leaves its measurements in the log.
//
// Example:
//   std::cout << reco::FormatStatsSummary(server->Stats(/*reset=*/false));
//   // reco_server summary: mode=arena_pool malloc=glibc window=12.3s
//   // rpcs=2000 errors=0 ...
//   // phase      p50_us  p99_us  mean_us  allocs/rpc  frees/rpc  bytes/rpc
//   // build       ...
//
// Thread-safety: a pure function.
#ifndef ARENA_GRPC_SERVER_STATS_SUMMARY_H_
#define ARENA_GRPC_SERVER_STATS_SUMMARY_H_

#include <string>

#include "proto/stats.pb.h"

namespace reco {

std::string FormatStatsSummary(const v1::StatsSnapshot& stats);

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_STATS_SUMMARY_H_
