#include "client/poller_choice.h"

#include <string>

#include "gtest/gtest.h"

namespace reco {
namespace {

LoadOptions With(std::vector<TargetSpec> targets, std::string lb_policy = "round_robin") {
  LoadOptions o;
  o.targets = std::move(targets);
  o.lb_policy = std::move(lb_policy);
  return o;
}

TEST(ChoosePoller, AutoIsPollUnlessRoundRobinSpreadsATargetOverBackends) {
  const TargetSpec one{"heap", "127.0.0.1:5001"};
  const TargetSpec replicas{"pool", "127.0.0.1:5002,127.0.0.1:5003"};
  const TargetSpec dns{"svc", "dns:///svc:80"};
  EXPECT_EQ(ChoosePoller("auto", With({one})).value(), "poll");
  EXPECT_EQ(ChoosePoller("auto", With({one, replicas})).value(), "epoll1");
  EXPECT_EQ(ChoosePoller("auto", With({dns})).value(), "epoll1");
  // pick_first keeps each channel on one backend: nothing left connecting unpolled.
  EXPECT_EQ(ChoosePoller("auto", With({one, replicas, dns}, "pick_first")).value(), "poll");
}

TEST(ChoosePoller, ExplicitChoicesStandButPollIsRefusedForRoundRobinReplicas) {
  const TargetSpec one{"heap", "127.0.0.1:5001"};
  const TargetSpec replicas{"pool", "127.0.0.1:5002,127.0.0.1:5003"};
  for (const char* name : {"poll", "epoll1", "default"}) {
    EXPECT_EQ(ChoosePoller(name, With({one})).value(), name);
  }
  EXPECT_EQ(ChoosePoller("epoll1", With({replicas})).value(), "epoll1");
  EXPECT_EQ(ChoosePoller("poll", With({replicas}, "pick_first")).value(), "poll");
  absl::StatusOr<std::string> refused = ChoosePoller("poll", With({one, replicas}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("--grpc_poll_strategy poll: target pool"), std::string::npos)
      << refused.status();
  absl::StatusOr<std::string> bad = ChoosePoller("epollex", With({one}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--grpc_poll_strategy must be auto, poll, epoll1 or default"),
            std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace reco
