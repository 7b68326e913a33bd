// See report_merge.h.
#include "client/report_merge.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/server_figures.h"
#include "core/response_builder.h"

namespace reco {
namespace {

constexpr char kServerNotMerged[] = "merged report: server figures are not merged, see each input";

absl::Status Mismatch(const std::string& file, const std::string& first, const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat(file, ": cannot merge with ", first, ": ", what));
}

// What every input must share for its windows to be the same windows (see the header).
absl::Status CheckSameRun(const NamedReport& first, const NamedReport& other) {
  const LoadOptions& a = first.report.options;
  const LoadOptions& b = other.report.options;
  auto names = [](const LoadOptions& o) {
    std::vector<std::string> n;
    for (const TargetSpec& t : o.targets) n.push_back(t.name);
    return absl::StrJoin(n, ",");
  };
  auto differ = [&](const std::string& what, const auto& x, const auto& y) {
    return Mismatch(other.name, first.name, absl::StrCat(what, " differ (", y, " here, ", x, " there)"));
  };
  if (names(a) != names(b)) return differ("targets", names(a), names(b));
  if (a.rounds != b.rounds) return differ("rounds", a.rounds, b.rounds);
  if (a.duration != b.duration) return differ("durations", absl::FormatDuration(a.duration), absl::FormatDuration(b.duration));
  if (a.open_loop() != b.open_loop()) {
    return differ("loops", a.open_loop() ? "open" : "closed", b.open_loop() ? "open" : "closed");
  }
  if (a.items != b.items) return differ("items", a.items, b.items);
  if (a.profile != b.profile) return differ("profiles", TextProfileName(a.profile), TextProfileName(b.profile));
  for (size_t t = 0; t < a.targets.size(); ++t) {
    if (first.report.targets[t].rounds.size() != other.report.targets[t].rounds.size()) {
      return differ(absl::StrCat("target ", a.targets[t].name, "'s recorded rounds"),
                    first.report.targets[t].rounds.size(), other.report.targets[t].rounds.size());
    }
  }
  // The same report twice (a file given twice, or a copy): identical start, command
  // line and counts. Two real runs would differ in their counts or latency sums.
  const RunReport& x = first.report;
  const RunReport& y = other.report;
  if (x.environment.started_utc == y.environment.started_utc && x.environment.command_line == y.environment.command_line &&
      !x.targets.empty() && x.targets[0].client.completed == y.targets[0].client.completed &&
      x.targets[0].client.latency.sum() == y.targets[0].client.latency.sum()) {
    return Mismatch(other.name, first.name, "the same run twice (same start, command line and counts): it would count every request twice");
  }
  return absl::OkStatus();
}

// Adds `other` to `into`, keeping the longer window instead of the sum (the
// windows ran at the same time).
void MergeConcurrent(ClientFigures& into, const ClientFigures& other) {
  const double seconds = std::max(into.seconds, other.seconds);
  into.Merge(other);
  into.seconds = seconds;
}

}  // namespace

absl::StatusOr<RunReport> MergeReports(const std::vector<NamedReport>& inputs, const std::string& command_line) {
  if (inputs.empty()) return absl::InvalidArgumentError("nothing to merge: give at least one report");
  const NamedReport& first = inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      absl::Status same = CheckSameRun(inputs[j], inputs[i]);
      if (!same.ok()) return same;
    }
  }

  RunReport m;
  m.options = first.report.options;
  m.environment = first.report.environment;
  m.environment.command_line = command_line;
  m.environment.merged_from.clear();
  for (size_t t = 0; t < m.options.targets.size(); ++t) {
    TargetResult target;
    target.spec = first.report.targets[t].spec;
    target.rounds.resize(first.report.targets[t].rounds.size());
    for (size_t k = 0; k < target.rounds.size(); ++k) target.rounds[k].round = first.report.targets[t].rounds[k].round;
    m.targets.push_back(std::move(target));
  }
  std::vector<std::string> addresses_differ;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NamedReport& in = inputs[i];
    m.environment.merged_from.push_back(in.name);
    m.environment.started_utc = std::min(m.environment.started_utc, in.report.environment.started_utc);
    m.wall_seconds = std::max(m.wall_seconds, in.report.wall_seconds);
    if (i > 0) {
      m.options.rate += in.report.options.rate;
      m.options.concurrency += in.report.options.concurrency;
      m.options.connections += in.report.options.connections;
    }
    for (const std::string& w : in.report.warnings) m.warnings.push_back(absl::StrCat(in.name, ": ", w));
    for (size_t t = 0; t < m.targets.size(); ++t) {
      const TargetResult& from = in.report.targets[t];
      TargetResult& into = m.targets[t];
      if (from.spec.address != into.spec.address) {
        addresses_differ.push_back(absl::StrCat(in.name, " drove ", from.spec.name, " at ", from.spec.address));
      }
      MergeConcurrent(into.client, from.client);
      for (size_t k = 0; k < into.rounds.size(); ++k) MergeConcurrent(into.rounds[k].client, from.rounds[k].client);
    }
  }
  for (TargetResult& t : m.targets) {
    t.server = UnavailableServerFigures(kServerNotMerged);
    for (RoundResult& r : t.rounds) r.server = UnavailableServerFigures(kServerNotMerged);
  }
  m.warnings.insert(m.warnings.begin(),
                    absl::StrCat("merged from ", inputs.size(), " reports (", absl::StrJoin(m.environment.merged_from, ", "),
                                 ") that ran at the same time: counts and latency histograms add, QPS is over the "
                                 "longest window; the server side and other processes' CPU are not merged, see each input"));
  if (!addresses_differ.empty()) {
    m.warnings.push_back(absl::StrCat("targets at other addresses than in ", first.name, ": ",
                                      absl::StrJoin(addresses_differ, "; ")));
  }
  return m;
}

}  // namespace reco
