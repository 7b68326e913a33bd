// See requirement.h.
#include "client/report/requirement.h"

#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/report/report_figures.h"

namespace reco {
namespace {

struct OpName {
  absl::string_view text;
  RequireOp op;
};
constexpr OpName kOps[] = {
    {"<=", RequireOp::kAtMost}, {"<", RequireOp::kBelow}, {">=", RequireOp::kAtLeast}, {">", RequireOp::kAbove}};
constexpr absl::string_view kOpChars = "<>=!";

// Names people write for a figure, and the report's key they mean.
constexpr std::pair<absl::string_view, absl::string_view> kAliases[] = {
    {"server_cpu_per_rpc", "server_cpu_us_per_rpc"}};

constexpr absl::string_view kShape =
    "want TARGET/BASELINE FIGURE OP NUMBER, e.g. 'arena_pool/heap server_cpu_us_per_rpc <= 0.7'";

absl::Status Bad(absl::string_view expression, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("--require '", expression, "': ", what));
}

absl::string_view OpText(RequireOp op) {
  for (const OpName& o : kOps) {
    if (o.op == op) return o.text;
  }
  return "?";
}

// For <= and < the largest per-round ratio is the one that can break the bound, for
// >= and > the smallest.
bool UpperBound(RequireOp op) { return op == RequireOp::kAtMost || op == RequireOp::kBelow; }

bool Holds(double ratio, RequireOp op, double bound) {
  switch (op) {
    case RequireOp::kAtMost:
      return ratio <= bound;
    case RequireOp::kBelow:
      return ratio < bound;
    case RequireOp::kAtLeast:
      return ratio >= bound;
    case RequireOp::kAbove:
      return ratio > bound;
  }
  return false;
}

std::vector<std::string> TargetNames(const LoadOptions& options) {
  std::vector<std::string> names;
  for (const TargetSpec& t : options.targets) names.push_back(t.name);
  return names;
}

absl::Status CheckTarget(absl::string_view expression, absl::string_view role, const std::string& name,
                         const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (n == name) return absl::OkStatus();
  }
  return Bad(expression, absl::StrCat("unknown ", role, " '", name, "' (targets: ", absl::StrJoin(names, ", "), ")"));
}

// The figure's key, an alias resolved, or why it cannot be required.
absl::StatusOr<std::string> FigureKey(absl::string_view expression, std::string name, const LoadOptions& options) {
  for (const auto& [alias, key] : kAliases) {
    if (name == alias) name = std::string(key);
  }
  std::vector<std::string> valid;
  for (const Figure& f : ReportFigures(options)) {
    if (f.key == name && !f.has_ratio) {
      return Bad(expression, absl::StrCat("figure '", name, "' has no ratio (it is what other processes did)"));
    }
    if (f.key == name) return name;
    if (f.has_ratio) valid.push_back(f.key);
  }
  return Bad(expression, absl::StrCat("unknown figure '", name, "' (figures: ", absl::StrJoin(valid, ", "), ")"));
}

// "x0.52 [0.48-0.55]", or "x0.52" over one round.
std::string FormatSpread(const PairedRatio& r) {
  if (r.rounds < 2) return absl::StrFormat("x%.2f", r.median);
  return absl::StrFormat("x%.2f [%.2f-%.2f]", r.median, r.min, r.max);
}

// "2" or "rounds 2, 3": the rounds a ratio left out.
std::string UnmeasuredRounds(const PairedRatio& r) {
  std::vector<int> rounds;
  for (size_t i = 0; i < r.by_round.size(); ++i) {
    if (!r.by_round[i]) rounds.push_back(static_cast<int>(i + 1));
  }
  return absl::StrCat(rounds.size() == 1 ? "round " : "rounds ", absl::StrJoin(rounds, ", "));
}

// The worst round's detail ("worst round 2: x0.81"), judged on every round.
std::pair<bool, std::string> JudgeRounds(const Requirement& q, const PairedRatio& r) {
  size_t worst = 0;
  for (size_t i = 1; i < r.by_round.size(); ++i) {
    const bool worse = UpperBound(q.op) ? *r.by_round[i] > *r.by_round[worst] : *r.by_round[i] < *r.by_round[worst];
    if (worse) worst = i;
  }
  // %.4g, not %.2f: a worst round of 0.7004 against "<= 0.7" must not print as 0.70.
  const double value = *r.by_round[worst];
  return {Holds(value, q.op, q.bound), absl::StrFormat("worst round %d: x%.4g", worst + 1, value)};
}

}  // namespace

std::string Requirement::Expression() const {
  return absl::StrFormat("%s/%s %s %s %g", target, baseline, figure, OpText(op), bound);
}

absl::StatusOr<Requirement> ParseRequirement(absl::string_view expression, const LoadOptions& options) {
  const size_t op_at = expression.find_first_of(kOpChars);
  if (op_at == absl::string_view::npos) return Bad(expression, absl::StrCat("no operator (<=, <, >=, >): ", kShape));
  const size_t op_end = std::min(expression.find_first_not_of(kOpChars, op_at), expression.size());
  const absl::string_view op_text = expression.substr(op_at, op_end - op_at);
  Requirement q;
  bool known_op = false;
  for (const OpName& o : kOps) {
    if (o.text != op_text) continue;
    q.op = o.op;
    known_op = true;
  }
  if (!known_op) return Bad(expression, absl::StrCat("unknown operator '", op_text, "': use <=, <, >= or >"));

  const std::vector<std::string> left =
      absl::StrSplit(expression.substr(0, op_at), absl::ByAnyChar(" \t"), absl::SkipWhitespace());
  if (left.size() != 2) return Bad(expression, kShape);
  const std::vector<std::string> pair = absl::StrSplit(left[0], '/');
  if (pair.size() != 2 || pair[0].empty() || pair[1].empty()) {
    return Bad(expression, absl::StrCat("'", left[0], "' is not TARGET/BASELINE: ", kShape));
  }
  q.target = pair[0];
  q.baseline = pair[1];
  const std::vector<std::string> names = TargetNames(options);
  if (absl::Status s = CheckTarget(expression, "target", q.target, names); !s.ok()) return s;
  if (absl::Status s = CheckTarget(expression, "baseline", q.baseline, names); !s.ok()) return s;
  if (q.target == q.baseline) return Bad(expression, absl::StrCat("TARGET and BASELINE are both '", q.target, "'"));
  absl::StatusOr<std::string> figure = FigureKey(expression, left[1], options);
  if (!figure.ok()) return figure.status();
  q.figure = *std::move(figure);

  absl::string_view number = absl::StripAsciiWhitespace(expression.substr(op_end));
  absl::ConsumePrefix(&number, "x");  // "x0.7", as the reports print ratios
  if (!absl::SimpleAtod(number, &q.bound) || !std::isfinite(q.bound) || q.bound < 0) {
    return Bad(expression, absl::StrCat("'", number, "' is not a ratio (a number >= 0, e.g. 0.7)"));
  }
  return q;
}

absl::StatusOr<std::vector<Requirement>> ParseRequirements(const std::vector<std::string>& expressions,
                                                           const LoadOptions& options) {
  std::vector<Requirement> out;
  for (const std::string& e : expressions) {
    absl::StatusOr<Requirement> q = ParseRequirement(e, options);
    if (!q.ok()) return q.status();
    out.push_back(*std::move(q));
  }
  return out;
}

RequirementResult EvaluateRequirement(const Requirement& q, const RunReport& report) {
  RequirementResult result;
  result.set_expression(q.Expression());
  std::optional<size_t> target, baseline;
  for (size_t i = 0; i < report.targets.size(); ++i) {
    if (report.targets[i].spec.name == q.target) target = i;
    if (report.targets[i].spec.name == q.baseline) baseline = i;
  }
  std::optional<PairedRatio> ratio;
  for (const Figure& f : ReportFigures(report.options)) {
    if (f.key == q.figure && target && baseline) ratio = RatioBetween(report, *target, *baseline, f);
  }
  std::string measured = "n/a";
  if (!ratio) {
    result.set_detail("not measured");
  } else if (ratio->skipped > 0) {
    measured = FormatSpread(*ratio);
    result.set_detail(absl::StrCat("not measured in ", UnmeasuredRounds(*ratio)));
  } else {
    measured = FormatSpread(*ratio);
    auto [passed, worst] = JudgeRounds(q, *ratio);
    result.set_passed(passed);
    if (!passed) result.set_detail(worst);
  }
  // The ratio as the JSON holds it: numbers, or null when no round measured it.
  for (auto [value, part] :
       {std::pair{result.mutable_median(), &PairedRatio::median}, std::pair{result.mutable_min(), &PairedRatio::min},
        std::pair{result.mutable_max(), &PairedRatio::max}}) {
    if (ratio && std::isfinite((*ratio).*part)) {
      value->set_number_value((*ratio).*part);
    } else {
      value->set_null_value(google::protobuf::NULL_VALUE);
    }
  }
  result.set_rounds(ratio ? ratio->rounds : 0);
  result.set_line(absl::StrCat("require ", result.expression(), ": ", measured,
                               result.passed() ? " PASS" : absl::StrCat(" FAIL (", result.detail(), ")")));
  return result;
}

std::vector<RequirementResult> EvaluateRequirements(const std::vector<Requirement>& requirements,
                                                    const RunReport& report) {
  std::vector<RequirementResult> out;
  for (const Requirement& q : requirements) out.push_back(EvaluateRequirement(q, report));
  return out;
}

}  // namespace reco
