// See report_verdict.h.
#include "client/report/report_verdict.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/noise_guard.h"
#include "client/report/report_figures.h"

namespace reco {
namespace {

// The figures a verdict line gives, in its order, with the words it uses for them.
struct VerdictFigure {
  const char* key;   // client/report/report_figures.h's key
  const char* what;  // "server CPU per RPC"
};
constexpr VerdictFigure kVerdictFigures[] = {{"server_cpu_us_per_rpc", "server CPU per RPC"}, {"qps", "QPS"}};

const Figure* FindFigure(const std::vector<Figure>& figures, const std::string& key) {
  for (const Figure& f : figures) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

// Why no round paired: whose server gave no figure, in its own words.
std::string WhyAbsent(const RunReport& report, size_t target, const std::string& what) {
  const ServerFigures& mine = report.targets[target].server;
  const ServerFigures& base = report.targets[0].server;
  if (!mine.available) return absl::StrCat(what, " not served (", mine.note, ")");
  if (!base.available) {
    return absl::StrCat(what, " not served by ", report.targets[0].spec.name, " (the baseline): ", base.note);
  }
  return absl::StrCat(what, " n/a (no round has it for both)");
}

std::string RatioWords(const PairedRatio& r, const std::string& what) {
  const char* fewer = r.skipped > 0 ? "*" : "";
  if (r.rounds < 2) return absl::StrFormat("x%.2f%s %s (1 round: no spread)", r.median, fewer, what);
  if (!r.measurable()) {
    return absl::StrFormat("no measurable difference in %s [%.2f-%.2f]%s", what, r.min, r.max, fewer);
  }
  return absl::StrCat(FormatPairedRatio(r), " ", what);
}

std::string ErrorWords(const ClientFigures& c) {
  if (c.errors() == 0) return "";
  return absl::StrFormat("; %d errors of %d calls", c.errors(), c.completed);
}

int DisturbedRounds(const RunReport& report) {
  int n = 0;
  for (const TargetResult& t : report.targets) {
    for (const RoundResult& r : t.rounds) n += Disturbed(r.machine) ? 1 : 0;
  }
  return n;
}

std::string Plural(int n, const char* one, const char* many) { return absl::StrCat(n, " ", n == 1 ? one : many); }

}  // namespace

std::string VerdictHeading(const RunReport& report) {
  if (report.targets.size() < 2) return "verdict: one target, nothing to compare";
  const int rounds = static_cast<int>(report.targets[0].rounds.size());
  const std::string& baseline = report.targets[0].spec.name;
  if (rounds < 2) return absl::StrCat("verdict against ", baseline, " (1 round: no spread):");
  return absl::StrFormat("verdict against %s (median of %d paired rounds [min-max]):", baseline, rounds);
}

std::string VerdictLine(const RunReport& report, size_t target) {
  const std::vector<Figure> figures = ReportFigures(report.options);
  std::vector<std::string> parts;
  for (const VerdictFigure& v : kVerdictFigures) {
    const Figure* f = FindFigure(figures, v.key);
    std::optional<PairedRatio> r = f ? RatioToBaseline(report, target, *f) : std::nullopt;
    parts.push_back(r ? RatioWords(*r, v.what) : WhyAbsent(report, target, v.what));
  }
  const TargetResult& t = report.targets[target];
  return absl::StrCat(t.spec.name, ": ", absl::StrJoin(parts, ", "), ErrorWords(t.client));
}

std::vector<std::string> VerdictLines(const RunReport& report) {
  std::vector<std::string> lines;
  for (size_t i = 1; i < report.targets.size(); ++i) lines.push_back(VerdictLine(report, i));
  return lines;
}

std::string WarningSummary(const RunReport& report) {
  const int total = static_cast<int>(report.warnings.size());
  if (total <= 1) return total ? report.warnings[0] : "";
  const int disturbed = DisturbedRounds(report);
  if (disturbed == 0) return absl::StrCat(total, " warnings, the first: ", report.warnings[0]);
  std::string line =
      absl::StrCat(total, " warnings: ", Plural(disturbed, "round", "rounds"), " disturbed by other processes");
  if (total > disturbed) absl::StrAppend(&line, ", ", Plural(total - disturbed, "other", "others"));
  return line;
}

}  // namespace reco
