// See report_merge.h.
#include "client/report_merge.h"

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/server_figures.h"
#include "core/request.h"

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

std::string UtcTime(int64_t unix_ms) {
  return absl::FormatTime("%H:%M:%E3S", absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

// Every round must have run at the same time in every input that recorded its window:
// the merged QPS is all the inputs' responses over ONE window, so runs made one after
// the other would overstate it by the number of inputs. No overlap at all is refused,
// naming the two files; an overlap under 90% of the shortest window is a warning (the
// processes were started apart). Inputs without window times are not checked.
absl::Status CheckWindowsOverlap(const std::vector<NamedReport>& inputs, std::vector<std::string>* warnings) {
  double worst = 1.0;
  std::string worst_where;
  for (size_t t = 0; t < inputs[0].report.targets.size(); ++t) {
    for (size_t k = 0; k < inputs[0].report.targets[t].rounds.size(); ++k) {
      const NamedReport* latest_start = nullptr;
      const NamedReport* earliest_end = nullptr;
      int64_t shortest = INT64_MAX;
      for (const NamedReport& in : inputs) {
        const RoundResult& r = in.report.targets[t].rounds[k];
        if (r.window_start_unix_ms <= 0 || r.window_end_unix_ms < r.window_start_unix_ms) continue;
        auto round_of = [&](const NamedReport* n) -> const RoundResult& { return n->report.targets[t].rounds[k]; };
        if (!latest_start || r.window_start_unix_ms > round_of(latest_start).window_start_unix_ms) latest_start = &in;
        if (!earliest_end || r.window_end_unix_ms < round_of(earliest_end).window_end_unix_ms) earliest_end = &in;
        shortest = std::min(shortest, r.window_end_unix_ms - r.window_start_unix_ms);
      }
      if (!latest_start || latest_start == earliest_end) continue;
      const RoundResult& late = latest_start->report.targets[t].rounds[k];
      const RoundResult& early = earliest_end->report.targets[t].rounds[k];
      const std::string where =
          absl::StrCat(inputs[0].report.targets[t].spec.name, " round ", late.round);
      const int64_t overlap = early.window_end_unix_ms - late.window_start_unix_ms;
      if (overlap <= 0) {
        return Mismatch(latest_start->name, earliest_end->name,
                        absl::StrCat(where, " did not run at the same time (", UtcTime(late.window_start_unix_ms), "-",
                                     UtcTime(late.window_end_unix_ms), " UTC here, ", UtcTime(early.window_start_unix_ms),
                                     "-", UtcTime(early.window_end_unix_ms),
                                     " there): merge the reports of processes started together, whose windows "
                                     "overlap; runs made one after another would overstate QPS"));
      }
      const double share = shortest > 0 ? static_cast<double>(overlap) / shortest : 1.0;
      if (share < worst) {
        worst = share;
        worst_where = where;
      }
    }
  }
  if (worst < 0.9) {
    warnings->push_back(absl::StrFormat(
        "the inputs' measured windows overlapped only %.0f%% of the shortest one (worst: %s): the merged QPS adds "
        "rates that partly did not run together, so it overstates the load they put on the server at once; start "
        "the processes together, with the same --warmup",
        100 * worst, worst_where));
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
  std::vector<std::string> overlap_warnings;
  if (absl::Status overlap = CheckWindowsOverlap(inputs, &overlap_warnings); !overlap.ok()) return overlap;

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
      m.options.threads += in.report.options.threads;
    }
    for (const std::string& w : in.report.warnings) m.warnings.push_back(absl::StrCat(in.name, ": ", w));
    for (size_t t = 0; t < m.targets.size(); ++t) {
      const TargetResult& from = in.report.targets[t];
      TargetResult& into = m.targets[t];
      if (from.spec.address != into.spec.address) {
        addresses_differ.push_back(absl::StrCat(in.name, " drove ", from.spec.name, " at ", from.spec.address));
      }
      MergeConcurrent(into.client, from.client);
      for (size_t k = 0; k < into.rounds.size(); ++k) {
        RoundResult& round = into.rounds[k];
        const RoundResult& other = from.rounds[k];
        MergeConcurrent(round.client, other.client);
        // The merged window spans all the inputs' (unknown if any input's is).
        if (i == 0 || (round.window_start_unix_ms > 0 && other.window_start_unix_ms > 0)) {
          round.window_start_unix_ms = i == 0 ? other.window_start_unix_ms
                                              : std::min(round.window_start_unix_ms, other.window_start_unix_ms);
          round.window_end_unix_ms = std::max(round.window_end_unix_ms, other.window_end_unix_ms);
        } else {
          round.window_start_unix_ms = round.window_end_unix_ms = 0;
        }
      }
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
  for (std::string& w : overlap_warnings) m.warnings.push_back(std::move(w));
  if (!addresses_differ.empty()) {
    m.warnings.push_back(absl::StrCat("targets at other addresses than in ", first.name, ": ",
                                      absl::StrJoin(addresses_differ, "; ")));
  }
  return m;
}

}  // namespace reco
