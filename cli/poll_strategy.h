// gRPC's poller, chosen before gRPC starts: reco_load calls UseGrpcPollStrategy with
// what client/poller_choice.h picks from --grpc_poll_strategy and its targets.
//
// Why: on Linux gRPC 1.51 polls with "epoll1" unless told otherwise: every socket of
// the process sits in one epoll set, watched by one thread at a time, which then hands
// what it read to the completion queue that waits for it and wakes that queue's
// thread. A load client whose threads each drive their own connections through their
// own completion queue pays a wake-up per handed-over reply. With "poll" each thread
// polls only the sockets of its own calls, as h2load's event loops each own theirs.
// docs/load-client.md has what a paired run measured (scripts/client_poller_cost.sh).
//
// gRPC reads the GRPC_POLL_STRATEGY variable once, when it starts (the first channel,
// server or completion queue): this sets that variable, so it must run before.
//
// Example:
//   int main(int argc, char** argv) {
//     reco::ParseFlagsOrExit2(argc, argv, "reco_load", "...");
//     if (absl::Status s = reco::UseGrpcPollStrategy("poll"); !s.ok()) { ... exit 2 ... }
//     ...   // channels, completion queues
//   }
//
// Thread-safety: call from main before other threads start (it calls setenv).
#ifndef ARENA_GRPC_CLI_POLL_STRATEGY_H_
#define ARENA_GRPC_CLI_POLL_STRATEGY_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace reco {

// "poll" or "epoll1": gRPC will use that poller (GRPC_POLL_STRATEGY is overwritten).
// "default": the environment is left alone (GRPC_POLL_STRATEGY if set, else gRPC's
// own choice). Anything else: InvalidArgument naming the values. Once gRPC has
// started: FailedPrecondition (the choice would not take effect).
absl::Status UseGrpcPollStrategy(absl::string_view name);

}  // namespace reco

#endif  // ARENA_GRPC_CLI_POLL_STRATEGY_H_
