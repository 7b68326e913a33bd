// ReadPemFile: the text of a TLS certificate or key file named by a command-line
// flag, for reco_server's --tls_cert/--tls_key, reco_probe's --tls_ca and reco_load's
// --tls_ca/--tls_cert/--tls_key.
//
// CheckPemCertificate: that a file of roots to trust (--tls_ca) holds a PEM
// certificate. Without it gRPC takes any file, logs its own errors, and every
// handshake fails, so a client blamed the server (exit 3) for its own flag.
//
// CheckTlsKeyPair: that a server's certificate and key files hold what gRPC needs --
// a PEM certificate, a PEM private key, and the key of that certificate -- parsed
// with OpenSSL (the library Debian's gRPC uses). gRPC itself only says "Invalid
// private key." when the port is made, with no file named.
//
// The errors name the flag and the path, never the content: key material must not
// reach a log.
//
// Example:
//   absl::StatusOr<std::string> pem = reco::ReadPemFile("--tls_cert", "/etc/reco/cert.pem");
//   if (!pem.ok()) { std::cerr << pem.status().message(); return 2; }
//   reco::CheckPemCertificate({"--tls_ca", "/etc/passwd", *pem_of_etc_passwd})
//   // InvalidArgument: "--tls_ca /etc/passwd: no PEM certificate in it (OpenSSL: no start line)"
//
// Thread-safety: any thread.
#ifndef ARENA_GRPC_RPC_PEM_FILE_H_
#define ARENA_GRPC_RPC_PEM_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace reco {

// The file's bytes; INVALID_ARGUMENT "--FLAG PATH: cannot read ..." when it cannot be
// opened or read, "--FLAG PATH: a directory, not a file", or "... the file is empty".
absl::StatusOr<std::string> ReadPemFile(absl::string_view flag, const std::string& path);

// A file named by a flag, as read by ReadPemFile.
struct PemFile {
  absl::string_view flag;  // "--tls_cert"
  std::string path;
  std::string pem;
};

// OK when the file holds a PEM certificate (its first one is parsed); otherwise
// INVALID_ARGUMENT "--FLAG PATH: no PEM certificate in it (OpenSSL: REASON)". Not
// checked: a CA file's other certificates, or their dates.
absl::Status CheckPemCertificate(const PemFile& file);

// A certificate file and its key file: OK, or INVALID_ARGUMENT naming the file at
// fault and why: "--tls_cert PATH: no PEM certificate in it (...)" (CheckPemCertificate),
// "--tls_key PATH: not a PEM private key (...)", "--tls_key PATH is not the key of the
// certificate in --tls_cert PATH", or an expired certificate ("... expired on ...").
absl::Status CheckTlsKeyPair(const PemFile& cert, const PemFile& key);

}  // namespace reco

#endif  // ARENA_GRPC_RPC_PEM_FILE_H_
