#include "client/machine_cpu.h"

#include <fstream>

#include "gtest/gtest.h"

namespace reco {
namespace {

// The head of a real /proc/stat (Linux 6.1, 2 CPUs).
constexpr char kProcStat[] =
    "cpu  10132153 290696 3084719 46828483 16683 0 25195 7 175628 0\n"
    "cpu0 5066076 145348 1542359 23414241 8341 0 12597 3 87814 0\n"
    "cpu1 5066077 145348 1542360 23414242 8342 0 12598 4 87814 0\n"
    "intr 1462898 0 9 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0\n";

TEST(ParseBusyCpuSeconds, SumsEverythingButIdleIowaitAndGuest) {
  // user + nice + system + irq + softirq + steal; guest is already inside user.
  const double ticks = 10132153.0 + 290696 + 3084719 + 0 + 25195 + 7;
  std::optional<double> busy = ParseBusyCpuSeconds(kProcStat, 100);
  ASSERT_TRUE(busy.has_value());
  EXPECT_DOUBLE_EQ(*busy, ticks / 100);
}

TEST(ParseBusyCpuSeconds, OlderKernelsWithFewerFields) {
  EXPECT_DOUBLE_EQ(*ParseBusyCpuSeconds("cpu  300 0 200 5000\n", 100), 5.0);
}

TEST(ParseBusyCpuSeconds, NaWithoutAnAggregateLine) {
  EXPECT_FALSE(ParseBusyCpuSeconds("", 100).has_value());
  EXPECT_FALSE(ParseBusyCpuSeconds("cpu0 1 2 3 4 5\n", 100).has_value());  // one CPU only
  EXPECT_FALSE(ParseBusyCpuSeconds("cpu  1 2 3\n", 100).has_value());      // no idle field
  EXPECT_FALSE(ParseBusyCpuSeconds("cpu  1 2 x 4\n", 100).has_value());
  EXPECT_FALSE(ParseBusyCpuSeconds(kProcStat, 0).has_value());
}

TEST(MachineWindowOf, OtherIsBusyMinusClientMinusServer) {
  MachineWindow m = MachineWindowOf(100.0, 107.0, 4.0, 2, 1.5, 4.1);
  ASSERT_TRUE(m.other_cpu_seconds.has_value());
  EXPECT_DOUBLE_EQ(*m.busy_cpu_seconds, 7.0);
  EXPECT_NEAR(*m.other_cpu_seconds, 1.4, 1e-9);
  EXPECT_NEAR(*m.OtherShare(), 1.4 / 8.0, 1e-9);
  // Tick rounding can make a quiet window's difference negative: it is 0.
  EXPECT_DOUBLE_EQ(*MachineWindowOf(100.0, 105.0, 4.0, 2, 1.0, 4.1).other_cpu_seconds, 0.0);
}

TEST(MachineWindowOf, NaWhenAReadingOrTheServerIsMissing) {
  MachineWindow unreadable = MachineWindowOf(std::nullopt, 107.0, 4.0, 2, 1.5, 4.1);
  EXPECT_FALSE(unreadable.busy_cpu_seconds.has_value());
  EXPECT_FALSE(unreadable.OtherShare().has_value());
  MachineWindow remote = MachineWindowOf(100.0, 107.0, 4.0, 2, 1.5, std::nullopt);
  EXPECT_DOUBLE_EQ(*remote.busy_cpu_seconds, 7.0);
  EXPECT_FALSE(remote.OtherShare().has_value());
}

TEST(MachineWindow, MergeAddsAndOneUnknownWindowMakesTheTotalUnknown) {
  MachineWindow total;
  total.Merge(MachineWindowOf(0.0, 2.0, 1.0, 2, 0.5, 0.5));
  total.Merge(MachineWindowOf(0.0, 3.0, 1.0, 2, 0.5, 0.5));
  EXPECT_EQ(total.windows, 2);
  EXPECT_DOUBLE_EQ(total.seconds, 2.0);
  EXPECT_DOUBLE_EQ(*total.other_cpu_seconds, 3.0);
  EXPECT_DOUBLE_EQ(*total.OtherShare(), 3.0 / 4.0);
  total.Merge(MachineWindowOf(0.0, 3.0, 1.0, 2, 0.5, std::nullopt));
  EXPECT_FALSE(total.OtherShare().has_value());
  EXPECT_DOUBLE_EQ(*total.busy_cpu_seconds, 8.0);
}

TEST(IsLoopbackTarget, LocalAddressesOnly) {
  for (const char* local : {"127.0.0.1:5001", "localhost:5001", "[::1]:5001", "ipv4:127.0.0.1:5001",
                            "dns:///localhost:5001", "ipv6:[::1]:5001", "unix:/tmp/reco.sock"}) {
    EXPECT_TRUE(IsLoopbackTarget(local)) << local;
  }
  for (const char* elsewhere : {"10.0.0.7:5001", "reco.example.com:443", "dns:///reco:5001",
                                "ipv4:127.0.0.1:5001,127.0.0.1:5002", "[2001:db8::1]:5001"}) {
    EXPECT_FALSE(IsLoopbackTarget(elsewhere)) << elsewhere;
  }
}

TEST(ReadBusyCpuSeconds, ReadsProcStatWhenThereIsOne) {
  if (!std::ifstream("/proc/stat")) {
    EXPECT_FALSE(ReadBusyCpuSeconds().has_value());  // n/a, not a crash
    return;
  }
  std::optional<double> busy = ReadBusyCpuSeconds();
  ASSERT_TRUE(busy.has_value());
  EXPECT_GT(*busy, 0);  // this test's own process has run
}

}  // namespace
}  // namespace reco
