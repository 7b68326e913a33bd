// Which gRPC poller reco_load asks for (--grpc_poll_strategy, cli/poll_strategy.h),
// given its targets.
//
// "poll" makes each client thread poll only the sockets of its own calls, which is
// cheaper per reply than gRPC's epoll1 (docs/load-client.md). But under "poll" nobody
// polls a round_robin channel's subchannels that are still connecting once one is
// ready: every call would go to the first backend that connected. So "auto" (the
// default) asks for poll unless a target balances over several backends with
// round_robin (replicas, or a dns:/// address), and then for epoll1; an explicit
// "poll" with such a target is refused.
//
// Example:
//   absl::StatusOr<std::string> poller = reco::ChoosePoller("auto", options);  // "poll"
//   if (poller.ok()) status = reco::UseGrpcPollStrategy(*poller);
//
// Thread-safety: a pure function.
#ifndef ARENA_GRPC_CLIENT_POLLER_CHOICE_H_
#define ARENA_GRPC_CLIENT_POLLER_CHOICE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/load_options.h"

namespace reco {

// "auto" -> "poll" or "epoll1" as above; "poll", "epoll1", "default" -> themselves,
// except "poll" with a round_robin target over several backends (InvalidArgument
// naming the target). Anything else: InvalidArgument naming the values.
absl::StatusOr<std::string> ChoosePoller(absl::string_view flag, const LoadOptions& options);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_POLLER_CHOICE_H_
