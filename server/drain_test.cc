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
  l.max_connections_per_source = -2;
  EXPECT_NE(CheckConnectionLimits(l).message().find("max_connections_per_source=-2"), std::string::npos);
  l = ConnectionLimits{};
  l.stream_memory_bytes = kStreamCostBytes - 1;
  EXPECT_NE(CheckConnectionLimits(l).message().find("stream_memory_bytes=20479 is out of range"), std::string::npos)
      << CheckConnectionLimits(l);
  EXPECT_FALSE(l.accept_compressed_requests);  // identity only by default
}

TEST(ConnectionLimits, TheCapsComeFromTheStreamMemoryAndAQuarterGoesToOneSource) {
  ConnectionLimits l;
  l.max_connections = 1000;
  ConnectionCaps caps = ResolveConnectionCaps(l, 256);
  EXPECT_EQ(caps.descriptors, 1000);
  EXPECT_EQ(caps.connections, (int64_t{512} << 20) / (kConnectionCostBytes + 256 * kStreamCostBytes));  // 102
  EXPECT_EQ(caps.per_source, caps.connections / 4);
  EXPECT_EQ(ResolveConnectionCaps(l, 100).connections,
            (int64_t{512} << 20) / (kConnectionCostBytes + 100 * kStreamCostBytes));
  // One stream per connection (behind the edge): the connection's own cost counts.
  EXPECT_EQ(ResolveConnectionCaps(l, 1).connections, (int64_t{512} << 20) / (40 << 10));  // 13,107
  l.max_connections = 32;  // the descriptors now the smaller cap
  EXPECT_EQ(ResolveConnectionCaps(l, 256).per_source, 8);
  l.max_connections_per_source = 0;
  EXPECT_EQ(ResolveConnectionCaps(l, 256).per_source, 0);
  l.max_connections_per_source = 7;
  EXPECT_EQ(ResolveConnectionCaps(l, 256).per_source, 7);
  l.stream_memory_bytes = kStreamCostBytes;  // not one connection's worth: still one
  EXPECT_EQ(ResolveConnectionCaps(l, 256).connections, 1);
  l.max_connections_per_source = kPerSourceQuarterOfCap;
  EXPECT_EQ(ResolveConnectionCaps(l, 256).per_source, 1);
  EXPECT_NE(DescribeConnectionCaps(ResolveConnectionCaps(l, 256), l, 256)
                .find("at most 1 connections (--stream_memory_bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace reco
