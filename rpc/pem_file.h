// ReadPemFile: the text of a TLS certificate or key file named by a command-line
// flag, for reco_server's --tls_cert/--tls_key and reco_probe's --tls_ca.
//
// The error names the flag and the path, never the content: key material must not
// reach a log. The content is not parsed here; gRPC judges it when the port or
// channel is made.
//
// Example:
//   absl::StatusOr<std::string> pem = reco::ReadPemFile("--tls_cert", "/etc/reco/cert.pem");
//   if (!pem.ok()) { std::cerr << pem.status().message(); return 2; }
//
// Thread-safety: any thread.
#ifndef ARENA_GRPC_RPC_PEM_FILE_H_
#define ARENA_GRPC_RPC_PEM_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace reco {

// The file's bytes; INVALID_ARGUMENT "--FLAG PATH: cannot read ..." when it cannot be
// opened or read, or is empty.
absl::StatusOr<std::string> ReadPemFile(absl::string_view flag, const std::string& path);

}  // namespace reco

#endif  // ARENA_GRPC_RPC_PEM_FILE_H_
