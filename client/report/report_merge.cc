// See report_merge.h.
#include "client/report/report_merge.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  if (a.duration != b.duration)
    return differ("durations", absl::FormatDuration(a.duration), absl::FormatDuration(b.duration));
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
  if (x.environment.started_utc() == y.environment.started_utc() &&
      x.environment.command_line() == y.environment.command_line() && !x.targets.empty() &&
      x.targets[0].client.completed == y.targets[0].client.completed &&
      x.targets[0].client.latency.sum() == y.targets[0].client.latency.sum()) {
    return Mismatch(other.name, first.name,
                    "the same run twice (same start, command line and counts): it would count every request twice");
  }
  return absl::OkStatus();
}

std::string UtcTime(int64_t unix_ms) {
  return absl::FormatTime("%H:%M:%E3S", absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

// How one round's windows lined up across the inputs that recorded theirs.
struct RoundWindows {
  const RoundResult* latest_start = nullptr;  // the window that started last
  const NamedReport* latest_start_input = nullptr;
  const RoundResult* earliest_end = nullptr;  // the window that ended first
  const NamedReport* earliest_end_input = nullptr;
  int64_t shortest_ms = INT64_MAX;

  // Earliest end minus latest start: <= 0 when two windows did not overlap at all.
  int64_t overlap_ms() const { return earliest_end->window_end_unix_ms - latest_start->window_start_unix_ms; }
};

// Round k of target t in every input; nullopt when fewer than two windows are known,
// or the one that started last also ended first (it lies inside all the others).
std::optional<RoundWindows> WindowsOf(const std::vector<NamedReport>& inputs, size_t t, size_t k) {
  RoundWindows w;
  for (const NamedReport& in : inputs) {
    const RoundResult& r = in.report.targets[t].rounds[k];
    if (r.window_start_unix_ms <= 0 || r.window_end_unix_ms < r.window_start_unix_ms) continue;
    if (!w.latest_start || r.window_start_unix_ms > w.latest_start->window_start_unix_ms) {
      w.latest_start = &r;
      w.latest_start_input = &in;
    }
    if (!w.earliest_end || r.window_end_unix_ms < w.earliest_end->window_end_unix_ms) {
      w.earliest_end = &r;
      w.earliest_end_input = &in;
    }
    w.shortest_ms = std::min(w.shortest_ms, r.window_end_unix_ms - r.window_start_unix_ms);
  }
  if (!w.latest_start || w.latest_start_input == w.earliest_end_input) return std::nullopt;
  return w;
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
      const std::optional<RoundWindows> w = WindowsOf(inputs, t, k);
      if (!w) continue;
      const RoundResult& late = *w->latest_start;
      const RoundResult& early = *w->earliest_end;
      const std::string where = absl::StrCat(inputs[0].report.targets[t].spec.name, " round ", late.round);
      if (w->overlap_ms() <= 0) {
        return Mismatch(w->latest_start_input->name, w->earliest_end_input->name,
                        absl::StrCat(where, " did not run at the same time (", UtcTime(late.window_start_unix_ms), "-",
                                     UtcTime(late.window_end_unix_ms), " UTC here, ",
                                     UtcTime(early.window_start_unix_ms), "-", UtcTime(early.window_end_unix_ms),
                                     " there): merge the reports of processes started together, whose windows "
                                     "overlap; runs made one after another would overstate QPS"));
      }
      const double share = w->shortest_ms > 0 ? static_cast<double>(w->overlap_ms()) / w->shortest_ms : 1.0;
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

// Every input against every earlier one (CheckSameRun).
absl::Status CheckAllSameRun(const std::vector<NamedReport>& inputs) {
  for (size_t i = 1; i < inputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (absl::Status same = CheckSameRun(inputs[j], inputs[i]); !same.ok()) return same;
    }
  }
  return absl::OkStatus();
}

// Where the merge starts: the first input's options and environment, its targets and
// round numbers, nothing counted yet.
RunReport EmptyMerge(const NamedReport& first, const std::string& command_line) {
  RunReport m;
  m.options = first.report.options;
  m.environment = first.report.environment;
  m.environment.set_command_line(command_line);
  m.environment.clear_merged_from();
  for (size_t t = 0; t < m.options.targets.size(); ++t) {
    TargetResult& target = m.targets.emplace_back();
    target.spec = first.report.targets[t].spec;
    for (const RoundResult& r : first.report.targets[t].rounds) target.rounds.emplace_back().round = r.round;
  }
  return m;
}

// Adds `other` to `into`, keeping the longer window instead of the sum (the
// windows ran at the same time).
void MergeConcurrent(ClientFigures& into, const ClientFigures& other) {
  const double seconds = std::max(into.seconds, other.seconds);
  into.Merge(other);
  into.seconds = seconds;
}

// The merged window spans all the inputs' (unknown, 0, if any input's is).
void MergeWindow(const RoundResult& other, bool first_input, RoundResult* round) {
  if (first_input || (round->window_start_unix_ms > 0 && other.window_start_unix_ms > 0)) {
    round->window_start_unix_ms =
        first_input ? other.window_start_unix_ms : std::min(round->window_start_unix_ms, other.window_start_unix_ms);
    round->window_end_unix_ms = std::max(round->window_end_unix_ms, other.window_end_unix_ms);
  } else {
    round->window_start_unix_ms = round->window_end_unix_ms = 0;
  }
}

// Adds the `index`-th input to `m`: the load it offered, its counts and histograms,
// its windows and warnings; a target it drove at another address goes to
// `addresses_differ`.
void AddInput(const NamedReport& in, size_t index, RunReport* m, std::vector<std::string>* addresses_differ) {
  m->environment.add_merged_from(in.name);
  m->environment.set_started_utc(std::min(m->environment.started_utc(), in.report.environment.started_utc()));
  m->wall_seconds = std::max(m->wall_seconds, in.report.wall_seconds);
  if (index > 0) {
    m->options.rate += in.report.options.rate;
    m->options.concurrency += in.report.options.concurrency;
    m->options.connections += in.report.options.connections;
    m->options.threads += in.report.options.threads;
  }
  for (const std::string& w : in.report.warnings) m->warnings.push_back(absl::StrCat(in.name, ": ", w));
  for (size_t t = 0; t < m->targets.size(); ++t) {
    const TargetResult& from = in.report.targets[t];
    TargetResult& into = m->targets[t];
    if (from.spec.address != into.spec.address) {
      addresses_differ->push_back(absl::StrCat(in.name, " drove ", from.spec.name, " at ", from.spec.address));
    }
    MergeConcurrent(into.client, from.client);
    for (size_t k = 0; k < into.rounds.size(); ++k) {
      MergeConcurrent(into.rounds[k].client, from.rounds[k].client);
      MergeWindow(from.rounds[k], index == 0, &into.rounds[k]);
    }
  }
}

}  // namespace

absl::StatusOr<RunReport> MergeReports(const std::vector<NamedReport>& inputs, const std::string& command_line) {
  if (inputs.empty()) return absl::InvalidArgumentError("nothing to merge: give at least one report");
  if (absl::Status same = CheckAllSameRun(inputs); !same.ok()) return same;
  std::vector<std::string> overlap_warnings;
  if (absl::Status overlap = CheckWindowsOverlap(inputs, &overlap_warnings); !overlap.ok()) return overlap;

  RunReport m = EmptyMerge(inputs[0], command_line);
  std::vector<std::string> addresses_differ;
  for (size_t i = 0; i < inputs.size(); ++i) AddInput(inputs[i], i, &m, &addresses_differ);
  for (TargetResult& t : m.targets) {
    t.server = UnavailableServerFigures(kServerNotMerged);
    for (RoundResult& r : t.rounds) r.server = UnavailableServerFigures(kServerNotMerged);
  }
  m.warnings.insert(
      m.warnings.begin(),
      absl::StrCat("merged from ", inputs.size(), " reports (", absl::StrJoin(m.environment.merged_from(), ", "),
                   ") that ran at the same time: counts and latency histograms add, QPS is over the "
                   "longest window; the server side and other processes' CPU are not merged, see each input"));
  for (std::string& w : overlap_warnings) m.warnings.push_back(std::move(w));
  if (!addresses_differ.empty()) {
    m.warnings.push_back(absl::StrCat("targets at other addresses than in ", inputs[0].name, ": ",
                                      absl::StrJoin(addresses_differ, "; ")));
  }
  return m;
}

}  // namespace reco
