// reco_probe: a container health probe. Calls grpc.health.v1.Health/Check and exits
// 0 when the server answers SERVING, 1 otherwise (with a message on stderr).
//
//   reco_probe --target 127.0.0.1:50051 --deadline 2s
//   reco_probe --target 127.0.0.1:50051 --tls_ca ca.pem     # a TLS server
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "cli/flag_parse.h"
#include "rpc/health_check.h"
#include "rpc/pem_file.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "HOST:PORT of the server to probe");
ABSL_FLAG(std::string, service, "", "service name to ask about; empty means the whole server");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM file of the roots to trust: probe a TLS server (reco_server --tls_cert/--tls_key); absent: insecure");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(2), "give up (exit 1) after this long");

int main(int argc, char** argv) {
  std::vector<char*> rest = reco::ParseFlagsOrExit2(argc, argv, "reco_probe",
                                                     "Exits 0 when a gRPC server's health service answers SERVING.\n"
                                                     "  reco_probe --target 127.0.0.1:50051");
  if (rest.size() > 1) {
    std::cerr << "reco_probe: unexpected argument '" << rest[1] << "' (use --target HOST:PORT)\n";
    return 2;
  }
  if (absl::GetFlag(FLAGS_deadline) <= absl::ZeroDuration()) {
    std::cerr << "reco_probe: --deadline must be positive\n";
    return 2;
  }
  std::string tls_ca_pem;
  if (!absl::GetFlag(FLAGS_tls_ca).empty()) {
    absl::StatusOr<std::string> pem = reco::ReadPemFile("--tls_ca", absl::GetFlag(FLAGS_tls_ca));
    if (!pem.ok()) {
      std::cerr << "reco_probe: " << pem.status().message() << "\n";
      return 2;
    }
    tls_ca_pem = *std::move(pem);
  }
  const std::string target = absl::GetFlag(FLAGS_target);
  absl::StatusOr<reco::HealthStatus> status =
      reco::CheckHealth(target, absl::GetFlag(FLAGS_service), absl::GetFlag(FLAGS_deadline), tls_ca_pem);
  if (!status.ok()) {
    std::cerr << "reco_probe: " << status.status().message() << "\n";
    return 1;
  }
  if (*status != reco::HealthStatus::kServing) {
    std::cerr << "reco_probe: " << target << " is " << reco::HealthStatusName(*status) << "\n";
    return 1;
  }
  std::cout << "reco_probe: " << target << " is SERVING\n";
  return 0;
}
