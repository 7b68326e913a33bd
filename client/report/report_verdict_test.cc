#include "client/report/report_verdict.h"

#include "absl/strings/str_split.h"
#include "client/report/report_renderers.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

using Lines = std::vector<std::string>;

// Per target (heap first: the baseline) and round: its QPS (1-second rounds, the
// server answering every call) and its server CPU per RPC in us; nullopt: the target
// has no stats service.
struct Rounds {
  std::vector<double> qps;
  std::optional<std::vector<double>> cpu_us;
};

RunReport VerdictReport(const std::vector<std::pair<std::string, Rounds>>& targets) {
  RunReport r;
  r.options.rounds = static_cast<int>(targets[0].second.qps.size());
  for (const auto& [name, rounds] : targets) {
    TargetResult t;
    t.spec = {name, "127.0.0.1:1"};
    r.options.targets.push_back(t.spec);
    for (size_t k = 0; k < rounds.qps.size(); ++k) {
      RoundResult round;
      round.round = static_cast<int>(k + 1);
      round.client.seconds = 1;
      round.client.ok = round.client.completed = round.client.sent = static_cast<uint64_t>(rounds.qps[k]);
      round.server = UnavailableServerFigures("the target has no reco.v1.ServerStats service");
      if (rounds.cpu_us) {
        round.server.available = true;
        round.server.rpcs = round.client.ok;
        round.server.cpu_user_seconds = (*rounds.cpu_us)[k] * 1e-6 * round.client.ok;
      }
      t.client.Merge(round.client);
      t.server.Merge(round.server);
      t.rounds.push_back(round);
    }
    r.targets.push_back(t);
  }
  return r;
}

// arena: CPU/RPC 0.54, 0.52, 0.55 of heap's, QPS 1.1, 1.5, 1.2 times: both measurable.
// reuse: CPU 0.99-1.02 and QPS 0.95-1.10 of heap's: both spreads hold 1.
RunReport MixedReport() {
  return VerdictReport({{"heap", {{1000, 1000, 1000}, {{1000, 1000, 1000}}}},
                        {"arena", {{1100, 1500, 1200}, {{540, 520, 550}}}},
                        {"reuse", {{950, 1100, 1040}, {{990, 1020, 1000}}}}});
}

TEST(Verdict, MeasurableAndNotMeasurableRatiosInWords) {
  const RunReport r = MixedReport();
  EXPECT_EQ(VerdictHeading(r), "verdict against heap (median of 3 paired rounds [min-max]):");
  EXPECT_EQ(VerdictLines(r), (Lines{"arena: x0.54 [0.52-0.55] server CPU per RPC, x1.20 [1.10-1.50] QPS",
                                    "reuse: no measurable difference in server CPU per RPC [0.99-1.02], "
                                    "no measurable difference in QPS [0.95-1.10]"}));
}

TEST(Verdict, AbsentServerFiguresSaySoPlainly) {
  RunReport r = VerdictReport({{"heap", {{1000, 1000}, {{1000, 1000}}}}, {"arena", {{2000, 2000}, std::nullopt}}});
  EXPECT_EQ(VerdictLine(r, 1),
            "arena: server CPU per RPC not served (the target has no reco.v1.ServerStats service), "
            "x2.00 [2.00-2.00] QPS");
  // The baseline's server is the silent one.
  r = VerdictReport({{"heap", {{1000, 1000}, std::nullopt}}, {"arena", {{2000, 2000}, {{500, 500}}}}});
  EXPECT_EQ(VerdictLine(r, 1),
            "arena: server CPU per RPC not served by heap (the baseline): the target has no "
            "reco.v1.ServerStats service, x2.00 [2.00-2.00] QPS");
}

TEST(Verdict, OneRoundHasNoSpreadAndErrorsAreCounted) {
  RunReport r = VerdictReport({{"heap", {{1000}, {{1000}}}}, {"arena", {{1430}, {{700}}}}});
  r.targets[1].client.wrong_content = 3;
  EXPECT_EQ(VerdictHeading(r), "verdict against heap (1 round: no spread):");
  EXPECT_EQ(VerdictLines(r), (Lines{"arena: x0.70 server CPU per RPC (1 round: no spread), x1.43 QPS (1 round: no "
                                    "spread); 3 errors of 1430 calls"}));
  r.targets.pop_back();
  EXPECT_EQ(VerdictHeading(r), "verdict: one target, nothing to compare");
  EXPECT_TRUE(VerdictLines(r).empty());
}

TEST(Verdict, TheTableEndsWithTheVerdictLines) {
  const std::vector<std::string> lines = absl::StrSplit(RenderTable(MixedReport()), '\n');
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ((Lines{lines.end() - 4, lines.end()}),
            (Lines{"verdict against heap (median of 3 paired rounds [min-max]):",
                   "  arena: x0.54 [0.52-0.55] server CPU per RPC, x1.20 [1.10-1.50] QPS",
                   "  reuse: no measurable difference in server CPU per RPC [0.99-1.02], "
                   "no measurable difference in QPS [0.95-1.10]",
                   ""}));
}

TEST(WarningSummary, CountsDisturbedRoundsAndTheRest) {
  RunReport r = MixedReport();
  EXPECT_EQ(WarningSummary(r), "");
  r.warnings = {"arena: 2 errors of 1000"};
  EXPECT_EQ(WarningSummary(r), "arena: 2 errors of 1000");
  r.warnings.push_back("reuse: the client may be the bottleneck");
  EXPECT_EQ(WarningSummary(r), "2 warnings, the first: arena: 2 errors of 1000");
  // Other processes at 35% of the machine in two rounds (noise_guard.h: over 10%).
  for (TargetResult* t : {&r.targets[0], &r.targets[2]}) {
    t->rounds[1].machine = MachineWindowOf(0.0, 7.0, 4, 2, 1.0, 3.2);
  }
  r.warnings.insert(r.warnings.end(), {"heap round 2: disturbed", "reuse round 2: disturbed"});
  EXPECT_EQ(WarningSummary(r), "4 warnings: 2 rounds disturbed by other processes, 2 others");
  r.warnings.resize(2);
  r.targets[2].rounds[1].machine = {};
  EXPECT_EQ(WarningSummary(r), "2 warnings: 1 round disturbed by other processes, 1 other");
}

}  // namespace
}  // namespace reco
