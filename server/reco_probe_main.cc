// reco_probe: a container health probe. Calls grpc.health.v1.Health/Check and exits
// 0 when the server answers SERVING, 1 otherwise (with a message on stderr), 2 for a
// bad flag (named) before any call.
//
//   reco_probe --target 127.0.0.1:50051 --deadline 2s
//   reco_probe --target 127.0.0.1:50051 --tls_ca ca.pem     # a TLS server
#include <iostream>
#include <optional>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli/flag_parse.h"
#include "rpc/health_check.h"
#include "rpc/pem_file.h"
#include "rpc/port_number.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "HOST:PORT of the server to probe (PORT 1-65535)");
ABSL_FLAG(std::string, service, "", "service name to ask about; empty means the whole server");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM file of the roots to trust (at least one certificate): probe a TLS server (reco_server "
          "--tls_cert/--tls_key); absent: insecure");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(2), "give up (exit 1) after this long (at most 1h)");

namespace {

// HOST:PORT with PORT 1-65535 (rpc/port_number.h): gRPC dialled :99999 as port 34463,
// :-1 as 65535, :+80 and :10x as 80 and 10, and an empty --target filled the output
// with its own DNS errors. (server/listen_address.h's CheckListenAddress reads a
// listener's address, where port 0 and an empty host have a meaning.)
absl::Status CheckTarget(const std::string& target) {
  const size_t colon = target.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(absl::StrCat("--target=", target, " is not HOST:PORT, e.g. 127.0.0.1:50051"));
  }
  const std::string port = target.substr(colon + 1);
  const std::optional<int> n = reco::PortNumber(port);
  if (!n.has_value() || *n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--target=", target, ": port '", port, "' is not in 1-65535"));
  }
  return absl::OkStatus();
}

int BadFlag(absl::string_view message) {
  std::cerr << "reco_probe: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = reco::ParseFlagsOrExit2(argc, argv, "reco_probe",
                                                    "Exits 0 when a gRPC server's health service answers SERVING.\n"
                                                    "  reco_probe --target 127.0.0.1:50051");
  if (rest.size() > 1) {
    std::cerr << "reco_probe: unexpected argument '" << rest[1] << "' (use --target HOST:PORT)\n";
    return 2;
  }
  const absl::Duration deadline = absl::GetFlag(FLAGS_deadline);
  if (deadline <= absl::ZeroDuration() || deadline > absl::Hours(1)) {  // inf parses
    return BadFlag(absl::StrCat("--deadline must be positive and at most 1h, got ", absl::FormatDuration(deadline)));
  }
  const std::string target = absl::GetFlag(FLAGS_target);
  if (absl::Status s = CheckTarget(target); !s.ok()) return BadFlag(s.message());
  std::string tls_ca_pem;
  if (const std::string path = absl::GetFlag(FLAGS_tls_ca); !path.empty()) {
    absl::StatusOr<std::string> pem = reco::ReadPemFile("--tls_ca", path);
    if (!pem.ok()) return BadFlag(pem.status().message());
    // gRPC takes any bytes as roots; then every handshake fails, blaming the server.
    if (absl::Status s = reco::CheckPemCertificate({"--tls_ca", path, *pem}); !s.ok()) return BadFlag(s.message());
    tls_ca_pem = *std::move(pem);
  }
  absl::StatusOr<reco::HealthStatus> status =
      reco::CheckHealth(target, absl::GetFlag(FLAGS_service), deadline, tls_ca_pem);
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
