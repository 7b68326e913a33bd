// Requirement: `reco_load --require EXPR`, a bound on a paired ratio that makes a
// load run pass or fail a build. EXPR is
//
//   TARGET/BASELINE FIGURE OP NUMBER      e.g. "arena_pool/heap server_cpu_us_per_rpc <= 0.7"
//
// where TARGET and BASELINE are two of the run's target names (any two, not only the
// first target: the ratio pairs their rounds as client/paired_ratio.h does), FIGURE is
// a key of client/report/report_figures.h (the JSON's and CSV's names, plus the alias
// server_cpu_per_rpc), OP is one of <= < >= >, and NUMBER a ratio (0.7, or x0.7).
// Spaces around OP are optional.
//
// The WHOLE spread must satisfy it, not the median: for <= and < the worst round is the
// largest per-round ratio, for >= and > the smallest. A run measures noise too; a bound
// that only the median clears would pass or fail by chance from run to run. A figure
// missing in any round (a target without stats, a phase the server did not sample)
// fails as "not measured": a gate must not pass on what it did not see.
//
// Example:
//   absl::StatusOr<std::vector<reco::Requirement>> reqs =
//       reco::ParseRequirements({"fragments/heap qps >= 4"}, options);   // before the load
//   ...
//   report.requirements = reco::EvaluateRequirements(*reqs, report);    // after it
//   report.requirements[0].line
//   // "require fragments/heap qps >= 4: x9.81 [9.52-10.10] PASS", or
//   // "require fragments/heap qps >= 4: x3.90 [3.70-4.20] FAIL (worst round 2: x3.7)"
//
// Thread-safety: pure functions.
#ifndef ARENA_GRPC_CLIENT_REPORT_REQUIREMENT_H_
#define ARENA_GRPC_CLIENT_REPORT_REQUIREMENT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/load_options.h"
#include "client/run_report.h"

namespace reco {

enum class RequireOp { kAtMost, kBelow, kAtLeast, kAbove };  // <=  <  >=  >

struct Requirement {
  std::string target;
  std::string baseline;
  std::string figure;  // the report's key, an alias resolved
  RequireOp op = RequireOp::kAtMost;
  double bound = 0;

  // "TARGET/BASELINE FIGURE OP NUMBER" with single spaces and the figure's key.
  std::string Expression() const;
};

// One --require value, checked against the run's target names and its figures
// (ReportFigures(options)): INVALID_ARGUMENT starting "--require 'EXPR': " and saying
// what is wrong -- the shape, an unknown target or figure (listing the valid ones),
// TARGET equal to BASELINE, a figure without a ratio, the operator, the number.
absl::StatusOr<Requirement> ParseRequirement(absl::string_view expression, const LoadOptions& options);

// Every value in order; the first bad one's error.
absl::StatusOr<std::vector<Requirement>> ParseRequirements(const std::vector<std::string>& expressions,
                                                           const LoadOptions& options);

// The requirement judged on `report`'s rounds (the whole spread; see above). A target
// the report lacks is not measured.
RequirementResult EvaluateRequirement(const Requirement& requirement, const RunReport& report);
std::vector<RequirementResult> EvaluateRequirements(const std::vector<Requirement>& requirements,
                                                    const RunReport& report);

// A run whose requirements were not all met exits kRequirementFailedExit
// (client/exit_codes.h), after every report was written.

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REQUIREMENT_H_
