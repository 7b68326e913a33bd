// PortNumber: the PORT of a HOST:PORT given on a command line (reco_server --listen,
// reco_load --target, reco_probe --target), read strictly. gRPC takes whatever it is
// given: it dialled :99999 as port 34463 (mod 65536), and absl::SimpleAtoi, which a
// flag check would reach for, takes a sign and spaces ("+80", " 80").
//
// Example:
//   reco::PortNumber("50051")   // 50051
//   reco::PortNumber("+80")     // nullopt
//   reco::PortNumber("99999")   // nullopt
//
// Thread-safety: a pure function.
#ifndef ARENA_GRPC_RPC_PORT_NUMBER_H_
#define ARENA_GRPC_RPC_PORT_NUMBER_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace reco {

// 1 to 5 decimal digits and nothing else, at most 65535: the number; nullopt
// otherwise. 0 is returned as 0: whether it means anything (a listener's "pick a
// free port") is the caller's to say.
std::optional<int> PortNumber(absl::string_view port);

}  // namespace reco

#endif  // ARENA_GRPC_RPC_PORT_NUMBER_H_
