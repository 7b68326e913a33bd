// reco_server's flags for connection limits (connection_limits.h) and for the stop
// (drain.h), kept out of reco_server_main.cc so that main stays flags-and-wiring.
// Link into reco_server only: the flags are defined in lifecycle_flags.cc.
//
//   absl::StatusOr<reco::ConnectionLimits> limits = reco::ConnectionLimitsFromFlags();
//   if (!limits.ok()) BadFlag(limits.status().message());   // names the flag, exit 2
#ifndef ARENA_GRPC_SERVER_LIFECYCLE_FLAGS_H_
#define ARENA_GRPC_SERVER_LIFECYCLE_FLAGS_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/connection_limits.h"
#include "server/drain.h"

namespace reco {

absl::StatusOr<ConnectionLimits> ConnectionLimitsFromFlags();
// `deadline` is --shutdown_deadline (defined in main).
absl::StatusOr<DrainOptions> DrainOptionsFromFlags(absl::Duration deadline);

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_LIFECYCLE_FLAGS_H_
