// CheckHealth: one grpc.health.v1.Health/Check call, for container health probes
// (Debian 12 packages no grpc_health_probe).
//
// gRPC does not install health.proto, so the client speaks the two tiny messages by
// hand over a generic stub: HealthCheckRequest { string service = 1; } and
// HealthCheckResponse { ServingStatus status = 1; } (UNKNOWN 0, SERVING 1,
// NOT_SERVING 2, SERVICE_UNKNOWN 3).
//
// Example:
//   absl::StatusOr<reco::HealthStatus> s =
//       reco::CheckHealth("127.0.0.1:50051", /*service=*/"", absl::Seconds(2));
//   bool ready = s.ok() && *s == reco::HealthStatus::kServing;
//
// Thread-safety: any thread; each call makes its own channel.
#ifndef ARENA_GRPC_RPC_HEALTH_CHECK_H_
#define ARENA_GRPC_RPC_HEALTH_CHECK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace reco {

enum class HealthStatus { kUnknown = 0, kServing = 1, kNotServing = 2, kServiceUnknown = 3 };

// "SERVING", "NOT_SERVING", ...
absl::string_view HealthStatusName(HealthStatus status);

// The server's answer, or the RPC's failure (UNAVAILABLE, DEADLINE_EXCEEDED, ...)
// with the target in the message. tls_ca_pem: PEM roots to trust, dialling with TLS;
// empty dials insecure.
absl::StatusOr<HealthStatus> CheckHealth(const std::string& target, const std::string& service, absl::Duration deadline,
                                         const std::string& tls_ca_pem = "");

}  // namespace reco

#endif  // ARENA_GRPC_RPC_HEALTH_CHECK_H_
