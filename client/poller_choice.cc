// See poller_choice.h.
#include "client/poller_choice.h"

#include "absl/strings/str_cat.h"

namespace reco {
namespace {

// The first target whose calls gRPC spreads over several backends with round_robin.
const TargetSpec* RoundRobinTarget(const LoadOptions& options) {
  if (options.lb_policy != "round_robin") return nullptr;
  for (const TargetSpec& t : options.targets) {
    if (t.IsDns() || t.Backends().size() > 1) return &t;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<std::string> ChoosePoller(absl::string_view flag, const LoadOptions& options) {
  const TargetSpec* balanced = RoundRobinTarget(options);
  if (flag == "auto") return std::string(balanced ? "epoll1" : "poll");
  if (flag == "poll" && balanced) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--grpc_poll_strategy poll: target ", balanced->name,
        " spreads its calls over several backends with round_robin, and under gRPC's poll poller the backends "
        "still connecting are never polled (every call would go to the first one ready); use auto or epoll1"));
  }
  if (flag == "poll" || flag == "epoll1" || flag == "default") return std::string(flag);
  return absl::InvalidArgumentError(
      absl::StrCat("--grpc_poll_strategy must be auto, poll, epoll1 or default, not '", flag, "'"));
}

}  // namespace reco
