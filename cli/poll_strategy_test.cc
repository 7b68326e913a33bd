#include "cli/poll_strategy.h"

#include <grpc/grpc.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace reco {
namespace {

std::string Env() {
  const char* v = std::getenv("GRPC_POLL_STRATEGY");
  return v ? v : "(unset)";
}

// One test, in this order: gRPC starts only at its end, and then stays started for
// the process (whether the chosen poller is really used: e2e_reco_load_cli_test).
TEST(PollStrategy, SetsTheVariableUntilGrpcStarts) {
  unsetenv("GRPC_POLL_STRATEGY");
  absl::Status bad = UseGrpcPollStrategy("epoll");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("--grpc_poll_strategy"), std::string::npos) << bad;
  EXPECT_EQ(Env(), "(unset)");

  EXPECT_TRUE(UseGrpcPollStrategy("default").ok());
  EXPECT_EQ(Env(), "(unset)");
  EXPECT_TRUE(UseGrpcPollStrategy("epoll1").ok());
  EXPECT_EQ(Env(), "epoll1");
  EXPECT_TRUE(UseGrpcPollStrategy("default").ok());
  EXPECT_EQ(Env(), "epoll1");  // the user's (here: the last) choice stands
  EXPECT_TRUE(UseGrpcPollStrategy("poll").ok());
  EXPECT_EQ(Env(), "poll");

  grpc_init();
  absl::Status late = UseGrpcPollStrategy("epoll1");
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Env(), "poll");
  grpc_shutdown();
}

}  // namespace
}  // namespace reco
