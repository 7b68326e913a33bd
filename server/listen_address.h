// The HOST:PORT a server listens on (--listen, --metrics_listen): checked before any
// port is bound, so a typo is a clear error instead of a port somewhere else.
//
// Example:
//   reco::CheckListenAddress("127.0.0.1:99999")   // InvalidArgument: "listen=127.0.0.1:99999: port ..."
//   reco::ListensOnEveryInterface("0.0.0.0:50051")  // true
//
// Thread-safety: pure functions.
#ifndef ARENA_GRPC_SERVER_LISTEN_ADDRESS_H_
#define ARENA_GRPC_SERVER_LISTEN_ADDRESS_H_

#include <string>

#include "absl/status/status.h"

namespace reco {

// "HOST:PORT" (HOST may be "[v6]") with PORT a decimal number in 1..65535, or 0
// (pick a free port). Without this gRPC took 127.0.0.1:99999 and listened elsewhere.
absl::Status CheckListenAddress(const std::string& listen);
// Whether `listen` (a valid HOST:PORT) binds every interface: an empty host, 0.0.0.0,
// [::] or *. reco_server warns then: anyone who reaches the machine can call it.
bool ListensOnEveryInterface(const std::string& listen);

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_LISTEN_ADDRESS_H_
