#include "client/noise_guard.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace reco {
namespace {

// Two rounds of 4 s on a 2-core machine; in round 2 other processes took 2.8 of the
// 8 CPU seconds (35%).
TargetResult Target(const std::string& name, double client_cpu_per_round) {
  TargetResult t;
  t.spec = {name, "127.0.0.1:1"};
  for (int round = 1; round <= 2; ++round) {
    RoundResult r;
    r.round = round;
    r.client.seconds = 4;
    r.client.client_cpu_seconds = client_cpu_per_round;
    const double other = round == 2 ? 2.8 : 0.2;
    r.machine = MachineWindowOf(0.0, client_cpu_per_round + 3.0 + other, 4, 2, client_cpu_per_round, 3.0);
    t.client.Merge(r.client);
    t.machine.Merge(r.machine);
    t.rounds.push_back(r);
  }
  return t;
}

TEST(Disturbed, OnlyAboveTheThresholdAndOnlyWhenKnown) {
  EXPECT_FALSE(Disturbed(MachineWindowOf(0.0, 0.8, 4, 2, 0, 0)));  // exactly 10%: not above
  EXPECT_TRUE(Disturbed(MachineWindowOf(0.0, 0.81, 4, 2, 0, 0)));
  EXPECT_FALSE(Disturbed(MachineWindowOf(0.0, 8.0, 4, 2, 0, std::nullopt)));  // server elsewhere: n/a
  EXPECT_FALSE(Disturbed(MachineWindow()));
}

TEST(AddNoiseWarnings, NamesTheDisturbedTargetAndRound) {
  RunReport report;
  report.options.threads = 1;
  report.targets = {Target("heap", 1.0)};
  std::vector<std::string> warnings;
  AddNoiseWarnings(report, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "heap round 2: other processes used 35% of the machine's CPU during the window; its figures are "
            "disturbed (rerun on a quiet machine)");
}

TEST(AddNoiseWarnings, TheClientNearItsThreadsMayBeTheBottleneck) {
  RunReport report;
  report.options.threads = 1;
  report.options.concurrency = 16;
  report.targets = {Target("arena", 3.8)};  // 3.8 of 4 s: 95% of one thread, over the 90%
  std::vector<std::string> warnings;
  AddNoiseWarnings(report, &warnings);
  ASSERT_EQ(warnings.size(), 2u);
  const bool one_cpu = sysconf(_SC_NPROCESSORS_ONLN) < 2;
  EXPECT_EQ(warnings[1],
            std::string("arena: the client used 95% of a CPU per driver thread (1 thread(s)) during the windows; the "
                        "client may be the bottleneck for this target (") +
                (one_cpu ? "run reco_load on another machine: this one has 1 CPU(s))" : "try --threads 2)"));
  // With two driver threads the same CPU is 48% of each: no warning.
  report.options.threads = 2;
  warnings.clear();
  AddNoiseWarnings(report, &warnings);
  EXPECT_EQ(warnings.size(), 1u);
}

// A target whose rounds saw these CPU-seconds of other processes (4 s on 2 cores: 8).
TargetResult TargetWithOthers(const std::string& name, const std::vector<double>& other_seconds) {
  TargetResult t;
  t.spec = {name, "127.0.0.1:1"};
  for (double other : other_seconds) {
    RoundResult r;
    r.round = static_cast<int>(t.rounds.size()) + 1;
    r.machine = MachineWindowOf(0.0, 1.0 + 1.0 + other, 4, 2, 1.0, 1.0);
    t.rounds.push_back(r);
  }
  return t;
}

TEST(NoiseSummary, NoDisturbedRoundNoLine) {
  RunReport report;
  report.targets = {TargetWithOthers("heap", {0.2, 0.6}), TargetWithOthers("arena", {0.0, 0.4})};
  const NoiseSummary s = SummarizeNoise(report);
  EXPECT_EQ(s.rounds, 4);
  EXPECT_EQ(s.disturbed, 0);
  EXPECT_EQ(NoiseSummaryLine(s), "");
}

TEST(NoiseSummary, SomeDisturbedRoundsCountedWithTheirRange) {
  RunReport report;
  report.targets = {TargetWithOthers("heap", {0.2, 2.8, 0.96}), TargetWithOthers("arena", {0.4, 1.6, 0.0})};
  const NoiseSummary s = SummarizeNoise(report);
  EXPECT_EQ(s.rounds, 6);
  EXPECT_EQ(s.disturbed, 3);  // 35%, 12% and 20%; 10% and below are quiet
  EXPECT_EQ(NoiseSummaryLine(s),
            "3 of 6 measured rounds were disturbed (other processes used 12-35% of the CPU); their figures are not "
            "comparable with a quiet machine's (the warnings name them)");
  report.targets = {TargetWithOthers("heap", {0.2, 2.8})};
  EXPECT_EQ(NoiseSummaryLine(SummarizeNoise(report)),
            "1 of 2 measured rounds was disturbed (other processes used 35% of the CPU); their figures are not "
            "comparable with a quiet machine's (the warnings name them)");
}

TEST(NoiseSummary, EveryRoundDisturbedSaysAll) {
  RunReport report;
  report.targets = {TargetWithOthers("heap", {5.84, 7.68, 6.0}), TargetWithOthers("arena", {7.0, 6.5, 5.9})};
  const NoiseSummary s = SummarizeNoise(report);
  EXPECT_EQ(s.rounds, 6);
  EXPECT_EQ(s.disturbed, 6);
  EXPECT_EQ(NoiseSummaryLine(s),
            "all 6 measured rounds were disturbed (other processes used 73-96% of the CPU); the figures are not "
            "comparable with a quiet machine's");
  report.targets = {TargetWithOthers("heap", {5.84})};
  EXPECT_EQ(NoiseSummaryLine(SummarizeNoise(report)),
            "the only measured round was disturbed (other processes used 73% of the CPU); the figures are not "
            "comparable with a quiet machine's");
}

// A target whose server reports no CPU (no reco.v1.ServerStats): its rounds' share of
// other processes is unknown.
TargetResult TargetWithoutServerCpu(const std::string& name, int rounds) {
  TargetResult t;
  t.spec = {name, "127.0.0.1:1"};
  t.server.available = false;
  for (int i = 1; i <= rounds; ++i) {
    RoundResult r;
    r.round = i;
    r.machine = MachineWindowOf(0.0, 7.0, 4, 2, 1.0, std::nullopt);
    t.rounds.push_back(r);
  }
  return t;
}

TEST(NoiseVerdict, CountsTheDisturbedRoundsAlwaysAndSaysWhatItCouldNotJudge) {
  RunReport report;
  report.targets = {TargetWithOthers("heap", {0.2, 0.6}), TargetWithOthers("arena", {0.0, 0.4})};
  EXPECT_EQ(NoiseVerdict(report),
            "noise guard: 0 of 4 measured rounds disturbed (other processes stayed within 10% of the machine's CPU)");
  report.targets = {TargetWithOthers("heap", {0.2, 2.8, 0.96}), TargetWithOthers("arena", {0.4, 1.6, 0.0})};
  EXPECT_EQ(NoiseVerdict(report),
            "noise guard: 3 of 6 measured rounds disturbed (other processes used 12-35% of the machine's CPU): "
            "their figures are not comparable with a quiet machine's");
  report.targets = {TargetWithOthers("heap", {5.84, 7.68})};
  EXPECT_EQ(NoiseVerdict(report),
            "noise guard: 2 of 2 measured rounds disturbed (other processes used 73-96% of the machine's CPU): "
            "the figures are not comparable with a quiet machine's");
  report.targets = {TargetWithoutServerCpu("feed", 3)};
  EXPECT_EQ(NoiseVerdict(report),
            "noise guard: could not judge the 3 measured rounds: feed's server reports no CPU (no "
            "reco.v1.ServerStats)");
  report.targets = {TargetWithOthers("heap", {0.2, 2.8}), TargetWithoutServerCpu("feed", 2)};
  EXPECT_EQ(NoiseVerdict(report),
            "noise guard: 1 of 2 measured rounds disturbed (other processes used 35% of the machine's CPU): their "
            "figures are not comparable with a quiet machine's; 2 not judged: feed's server reports no CPU (no "
            "reco.v1.ServerStats)");
  report.targets.clear();
  EXPECT_EQ(NoiseVerdict(report), "");
}

}  // namespace
}  // namespace reco
