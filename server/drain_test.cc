// The stop's checks and its watchdog; the drain itself is tested against the binary
// (tests/lifecycle/lifecycle_test.sh drain, hard_deadline).
#include "server/drain.h"

#include <gtest/gtest.h>

#include <thread>

#include "server/connection_limits.h"
#include "server/listen_address.h"

namespace reco {
namespace {

TEST(DrainOptions, DefaultsPass) { EXPECT_TRUE(CheckDrainOptions(DrainOptions{}).ok()); }

TEST(DrainOptions, HardDeadlineMustCoverDelayAndDeadline) {
  DrainOptions o;
  o.drain_delay = absl::Seconds(1);
  o.deadline = absl::Seconds(5);
  o.hard_deadline = absl::Seconds(6);
  absl::Status s = CheckDrainOptions(o);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--shutdown_hard_deadline=6s must be longer than"), std::string::npos) << s;
  o.drain_delay = -absl::Seconds(1);
  EXPECT_NE(CheckDrainOptions(o).message().find("--shutdown_drain_delay=-1s is out of range"), std::string::npos);
}

TEST(ShutdownWatchdog, DisarmedInTimeDoesNothing) {
  { ShutdownWatchdog watchdog(absl::Seconds(30)); }
  SUCCEED();  // the destructor returned at once and the process lives
}

TEST(ShutdownWatchdogDeathTest, ExitsWithItsStatusAndNamesThePhase) {
  EXPECT_EXIT(
      {
        ShutdownWatchdog watchdog(absl::Milliseconds(50));
        watchdog.SetPhase("testing the watchdog");
        std::this_thread::sleep_for(std::chrono::seconds(10));
      },
      ::testing::ExitedWithCode(kExitHardDeadline),
      "stop exceeded --shutdown_hard_deadline=50ms while testing the watchdog; exiting with status 3");
}

TEST(ListenAddress, PortRange) {
  EXPECT_TRUE(CheckListenAddress("127.0.0.1:0").ok());
  EXPECT_TRUE(CheckListenAddress("127.0.0.1:65535").ok());
  EXPECT_TRUE(CheckListenAddress("[::1]:50051").ok());
  EXPECT_TRUE(CheckListenAddress(":50051").ok());  // every interface, as gRPC reads it
  for (const char* bad : {"127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:", "127.0.0.1:+80",
                          "127.0.0.1: 80", "127.0.0.1:http", "nonsense"}) {
    absl::Status s = CheckListenAddress(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("listen="), std::string::npos) << s;
  }
}

TEST(ListenAddress, EveryInterfaceIsToldApart) {
  for (const char* all : {":50051", "0.0.0.0:50051", "[::]:50051", "*:0"}) {
    EXPECT_TRUE(ListensOnEveryInterface(all)) << all;
  }
  for (const char* one : {"127.0.0.1:50051", "[::1]:50051", "localhost:0", "10.0.0.7:80"}) {
    EXPECT_FALSE(ListensOnEveryInterface(one)) << one;
  }
}

TEST(ConnectionLimits, DefaultsPassAndEachBoundNamesItsFlag) {
  EXPECT_TRUE(CheckConnectionLimits(ConnectionLimits{}).ok());
  ConnectionLimits l;
  l.max_connection_idle = absl::ZeroDuration();
  EXPECT_NE(CheckConnectionLimits(l).message().find("max_connection_idle=0 is out of range"), std::string::npos)
      << CheckConnectionLimits(l);
  l = ConnectionLimits{};
  l.keepalive_time = absl::Hours(25);
  EXPECT_NE(CheckConnectionLimits(l).message().find("keepalive_time=25h"), std::string::npos);
  l = ConnectionLimits{};
  l.max_ping_strikes = -1;
  EXPECT_NE(CheckConnectionLimits(l).message().find("keepalive_max_ping_strikes=-1"), std::string::npos);
  l = ConnectionLimits{};
  l.max_connections_per_source = -1;
  EXPECT_NE(CheckConnectionLimits(l).message().find("max_connections_per_source=-1"), std::string::npos);
  EXPECT_FALSE(l.accept_compressed_requests);  // identity only by default
}

}  // namespace
}  // namespace reco
