#include "client/report/requirement.h"

#include "client/report/report_proto.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

// Per target and round: its QPS (1-second rounds) and server CPU per RPC in us;
// nullopt CPU: the target has no stats service. The first target is the baseline.
struct Rounds {
  std::vector<double> qps;
  std::optional<std::vector<double>> cpu_us;
};

RunReport Report(const std::vector<std::pair<std::string, Rounds>>& targets) {
  RunReport r;
  r.options.rounds = static_cast<int>(targets[0].second.qps.size());
  for (const auto& [name, rounds] : targets) {
    TargetResult& t = r.targets.emplace_back();
    t.spec = {name, "127.0.0.1:1"};
    r.options.targets.push_back(t.spec);
    for (size_t k = 0; k < rounds.qps.size(); ++k) {
      RoundResult& round = t.rounds.emplace_back();
      round.round = static_cast<int>(k + 1);
      round.client.seconds = 1;
      round.client.ok = round.client.completed = round.client.sent = static_cast<uint64_t>(rounds.qps[k]);
      round.server = UnavailableServerFigures("the target has no reco.v1.ServerStats service");
      if (rounds.cpu_us && (*rounds.cpu_us)[k] > 0) {
        round.server.available = true;
        round.server.rpcs = round.client.ok;
        round.server.cpu_user_seconds = (*rounds.cpu_us)[k] * 1e-6 * round.client.ok;
      }
    }
  }
  return r;
}

// arena's CPU per RPC is 0.50, 0.60, 0.80 of heap's (median 0.6); its QPS 2, 3, 4 times.
// nostats has no server figures; gap's server skipped round 2 (CPU 0 = no stats there).
RunReport ThreeRounds() {
  return Report({{"heap", {{1000, 1000, 1000}, {{100, 100, 100}}}},
                 {"arena", {{2000, 3000, 4000}, {{50, 60, 80}}}},
                 {"nostats", {{1000, 1000, 1000}, std::nullopt}},
                 {"gap", {{1000, 1000, 1000}, {{50, 0, 50}}}}});
}

Requirement Parsed(const std::string& expression) {
  absl::StatusOr<Requirement> q = ParseRequirement(expression, ThreeRounds().options);
  EXPECT_TRUE(q.ok()) << q.status();
  return q.value_or(Requirement());
}

std::string ParseError(const std::string& expression) {
  absl::StatusOr<Requirement> q = ParseRequirement(expression, ThreeRounds().options);
  EXPECT_FALSE(q.ok()) << expression;
  return std::string(q.status().message());
}

TEST(ParseRequirement, TheDocumentedFormAndItsVariants) {
  Requirement q = Parsed("arena/heap server_cpu_us_per_rpc <= 0.7");
  EXPECT_EQ(q.target, "arena");
  EXPECT_EQ(q.baseline, "heap");
  EXPECT_EQ(q.figure, "server_cpu_us_per_rpc");
  EXPECT_EQ(q.op, RequireOp::kAtMost);
  EXPECT_DOUBLE_EQ(q.bound, 0.7);
  EXPECT_EQ(q.Expression(), "arena/heap server_cpu_us_per_rpc <= 0.7");
  // No spaces around the operator, extra spaces elsewhere, "x" before the number.
  EXPECT_EQ(Parsed("  arena/heap   qps>=x4 ").Expression(), "arena/heap qps >= 4");
  EXPECT_EQ(Parsed("arena/heap qps < 5").op, RequireOp::kBelow);
  EXPECT_EQ(Parsed("arena/heap qps > 1.5").op, RequireOp::kAbove);
  // The alias, and a baseline that is not the run's first target.
  EXPECT_EQ(Parsed("arena/nostats server_cpu_per_rpc <= 1").Expression(), "arena/nostats server_cpu_us_per_rpc <= 1");
}

TEST(ParseRequirement, EachMistakeNamesTheFlagAndWhatIsWrong) {
  EXPECT_EQ(ParseError("arena/heap qps 4"),
            "--require 'arena/heap qps 4': no operator (<=, <, >=, >): want TARGET/BASELINE FIGURE OP NUMBER, e.g. "
            "'arena_pool/heap server_cpu_us_per_rpc <= 0.7'");
  EXPECT_EQ(ParseError("arena/heap qps == 4"),
            "--require 'arena/heap qps == 4': unknown operator '==': use <=, <, >= or >");
  EXPECT_EQ(ParseError("arena/heap qps => 4"),
            "--require 'arena/heap qps => 4': unknown operator '=>': use <=, <, >= or >");
  EXPECT_NE(ParseError("arena/heap qps latency_p99_ms <= 4").find("want TARGET/BASELINE FIGURE OP NUMBER"),
            std::string::npos);
  EXPECT_NE(ParseError("arena qps <= 4").find("'arena' is not TARGET/BASELINE"), std::string::npos);
  EXPECT_EQ(ParseError("arena_pool/heap qps <= 4"),
            "--require 'arena_pool/heap qps <= 4': unknown target 'arena_pool' (targets: heap, arena, nostats, gap)");
  EXPECT_EQ(ParseError("arena/hep qps <= 4"),
            "--require 'arena/hep qps <= 4': unknown baseline 'hep' (targets: heap, arena, nostats, gap)");
  EXPECT_EQ(ParseError("heap/heap qps <= 4"), "--require 'heap/heap qps <= 4': TARGET and BASELINE are both 'heap'");
  const std::string figure = ParseError("arena/heap cpu <= 1");
  EXPECT_EQ(figure.rfind("--require 'arena/heap cpu <= 1': unknown figure 'cpu' (figures: qps, latency_p50_ms,", 0), 0u)
      << figure;
  EXPECT_NE(figure.find("server_cpu_us_per_rpc"), std::string::npos);
  EXPECT_EQ(figure.find("machine_other_cpu_percent"), std::string::npos) << "a figure without ratio is not offered";
  EXPECT_EQ(ParseError("arena/heap machine_other_cpu_percent <= 1"),
            "--require 'arena/heap machine_other_cpu_percent <= 1': figure 'machine_other_cpu_percent' has no ratio "
            "(it is what other processes did)");
  for (const char* number : {"abc", "-1", "inf", "nan", "", "0.7x"}) {
    EXPECT_EQ(ParseError(absl::StrCat("arena/heap qps <= ", number)),
              absl::StrCat("--require 'arena/heap qps <= ", number, "': '", number,
                           "' is not a ratio (a number >= 0, e.g. 0.7)"));
  }
}

TEST(ParseRequirements, StopsAtTheFirstBadOne) {
  const LoadOptions options = ThreeRounds().options;
  absl::StatusOr<std::vector<Requirement>> all =
      ParseRequirements({"arena/heap qps >= 2", "gap/heap qps <= 1"}, options);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 2u);
  EXPECT_FALSE(ParseRequirements({"arena/heap qps >= 2", "arena/heap qps"}, options).ok());
}

RequirementResult Evaluated(const std::string& expression) {
  return EvaluateRequirement(Parsed(expression), ThreeRounds());
}

TEST(EvaluateRequirement, PassesWhenEveryRoundClearsTheBound) {
  RequirementResult r = Evaluated("arena/heap server_cpu_us_per_rpc <= 0.81");
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.detail(), "");
  EXPECT_EQ(r.line(), "require arena/heap server_cpu_us_per_rpc <= 0.81: x0.60 [0.50-0.80] PASS");
  EXPECT_TRUE(Evaluated("arena/heap qps >= 2").passed());
}

TEST(EvaluateRequirement, FailsOnTheWorstRoundThoughTheMedianPasses) {
  // Median 0.6 is under 0.7; round 3's 0.8 is not.
  RequirementResult r = Evaluated("arena/heap server_cpu_us_per_rpc <= 0.7");
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.line(), "require arena/heap server_cpu_us_per_rpc <= 0.7: x0.60 [0.50-0.80] FAIL (worst round 3: x0.8)");
  // For >= the worst round is the smallest: round 1's x2 against a median of x3.
  EXPECT_EQ(Evaluated("arena/heap qps >= 2.5").line(),
            "require arena/heap qps >= 2.5: x3.00 [2.00-4.00] FAIL (worst round 1: x2)");
  // A strict bound fails on equality; the inclusive one passes.
  EXPECT_FALSE(Evaluated("arena/heap qps > 2").passed());
  EXPECT_FALSE(Evaluated("arena/heap qps < 4").passed());
  EXPECT_TRUE(Evaluated("arena/heap qps <= 4").passed());
  EXPECT_TRUE(Evaluated("arena/heap qps >= 2").passed());
  // The same pairs against another baseline: heap over arena.
  EXPECT_EQ(Evaluated("heap/arena qps <= 0.5").line(), "require heap/arena qps <= 0.5: x0.33 [0.25-0.50] PASS");
}

TEST(EvaluateRequirement, AMissingFigureIsNotMeasuredAndFails) {
  RequirementResult r = Evaluated("nostats/heap server_cpu_us_per_rpc <= 100");
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(r.median().has_null_value());
  EXPECT_EQ(r.line(), "require nostats/heap server_cpu_us_per_rpc <= 100: n/a FAIL (not measured)");
  // Missing in one round only: the rounds that paired pass, the gate does not.
  RequirementResult gap = Evaluated("gap/heap server_cpu_us_per_rpc <= 1");
  EXPECT_FALSE(gap.passed());
  EXPECT_EQ(gap.line(),
            "require gap/heap server_cpu_us_per_rpc <= 1: x0.50 [0.50-0.50] FAIL (not measured in round 2)");
  // A target the report lacks (a merge judged against other names) is not measured.
  RunReport fewer = Report({{"heap", {{1000}, {{100}}}}});
  EXPECT_EQ(EvaluateRequirement(Parsed("arena/heap qps >= 1"), fewer).detail(), "not measured");
}

TEST(EvaluateRequirement, WrittenInTheJsonReport) {
  RunReport report = ThreeRounds();
  report.requirements = EvaluateRequirements(
      {Parsed("arena/heap server_cpu_us_per_rpc <= 0.7"), Parsed("nostats/heap server_cpu_us_per_rpc <= 1")}, report);
  const v1::LoadReport proto = LoadReportOf(report);
  ASSERT_EQ(proto.requirements_size(), 2);
  const v1::ReportRequirement& failed = proto.requirements(0);
  EXPECT_EQ(failed.expression(), "arena/heap server_cpu_us_per_rpc <= 0.7");
  EXPECT_NEAR(failed.median().number_value(), 0.6, 1e-9);
  EXPECT_NEAR(failed.min().number_value(), 0.5, 1e-9);
  EXPECT_NEAR(failed.max().number_value(), 0.8, 1e-9);
  EXPECT_EQ(failed.rounds(), 3);
  EXPECT_FALSE(failed.passed());
  EXPECT_EQ(failed.detail(), "worst round 3: x0.8");
  EXPECT_EQ(failed.line(), report.requirements[0].line());
  EXPECT_TRUE(proto.requirements(1).median().has_null_value());
  EXPECT_EQ(proto.requirements(1).detail(), "not measured");
}

}  // namespace
}  // namespace reco
