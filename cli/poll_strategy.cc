// See poll_strategy.h.
#include "cli/poll_strategy.h"

#include <grpc/grpc.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace reco {

absl::Status UseGrpcPollStrategy(absl::string_view name) {
  if (name != "poll" && name != "epoll1" && name != "default") {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc_poll_strategy must be poll, epoll1 or default, not '", name, "'"));
  }
  if (grpc_is_initialized()) {
    return absl::FailedPreconditionError("--grpc_poll_strategy: gRPC has already started, its poller is chosen");
  }
  if (name == "default") return absl::OkStatus();
  if (setenv("GRPC_POLL_STRATEGY", std::string(name).c_str(), /*overwrite=*/1) != 0) {
    return absl::InternalError("--grpc_poll_strategy: setenv(GRPC_POLL_STRATEGY) failed");
  }
  return absl::OkStatus();
}

}  // namespace reco
