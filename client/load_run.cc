// See load_run.h.
#include "client/load_run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "client/load_driver.h"
#include "client/machine_cpu.h"
#include "client/noise_guard.h"
#include "client/request_set.h"
#include "client/target_link.h"
#include "client/target_probe.h"
#include "client/target_warnings.h"

namespace reco {
namespace {

double ProcessCpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Sleeps until `until_ns` (monotonic), reporting progress every quarter second.
void WaitUntil(int64_t until_ns, const std::function<void()>& tick) {
  while (true) {
    const int64_t now = MonotonicNanos();
    if (now >= until_ns) return;
    if (tick) tick();
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(until_ns - now, 250'000'000)));
  }
}

// Whether every backend of the link runs on this machine (so its CPU is part of the
// machine's busy time).
bool AllLoopback(const TargetLink& link) {
  for (int i = 0; i < link.replicas(); ++i) {
    if (!IsLoopbackTarget(link.replica_address(i))) return false;
  }
  return link.replicas() > 0;
}

// Until `done` (a counted window's edges): polled, so that the progress line keeps
// moving and the stats snapshot follows the edge closely.
void WaitFor(const std::function<bool()>& done, const std::function<void()>& tick) {
  for (int polls = 0; !done(); ++polls) {
    if (tick && polls % 25 == 0) tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// With options.align_start, waits for the next multiple of it on the wall clock, not
// the monotonic one: the processes to line up may run on different machines, whose
// clocks NTP keeps within milliseconds of each other.
void WaitForAlignedStart(const LoadOptions& options, const ProgressSink& progress) {
  if (options.align_start <= absl::ZeroDuration()) return;
  const absl::Time start = NextAlignedStart(absl::Now(), options.align_start);
  const std::string line = absl::StrCat("waiting for ", absl::FormatTime("%H:%M:%S", start, absl::UTCTimeZone()),
                                        " UTC (--align_start ", absl::FormatDuration(options.align_start), ")");
  WaitUntil(MonotonicNanos() + absl::ToInt64Nanoseconds(start - absl::Now()), [&] {
    if (progress) progress(line);
  });
}

// What the client reads at an edge of a measured window. The machine's busy CPU is
// read right beside the client's own, so that the two cover the same stretch of time
// (the noise guard subtracts one from the other); the end is read in the reverse
// order of the start, so the client's stretch lies inside the machine's.
struct WindowEdge {
  int64_t monotonic_ns = 0;
  int64_t unix_ms = 0;
  std::optional<double> busy_cpu_seconds;
  double process_cpu_seconds = 0;
};

WindowEdge OpenWindow() {
  WindowEdge e;
  e.monotonic_ns = MonotonicNanos();
  e.unix_ms = absl::ToUnixMillis(absl::Now());
  e.busy_cpu_seconds = ReadBusyCpuSeconds();
  e.process_cpu_seconds = ProcessCpuSeconds();
  return e;
}

WindowEdge CloseWindow() {
  WindowEdge e;
  e.process_cpu_seconds = ProcessCpuSeconds();
  e.busy_cpu_seconds = ReadBusyCpuSeconds();
  e.monotonic_ns = MonotonicNanos();
  e.unix_ms = absl::ToUnixMillis(absl::Now());
  return e;
}

// Every replica's stats (none for a target without stats): each answers for its own
// calls.
std::vector<absl::StatusOr<v1::StatsSnapshot>> SnapshotAll(ProbedTarget& target, const LoadOptions& options) {
  std::vector<absl::StatusOr<v1::StatsSnapshot>> s;
  for (int i = 0; target.has_stats && i < target.link->replicas(); ++i) {
    s.push_back(target.link->Snapshot(options.probe_deadline, i));
  }
  return s;
}

// The server side of a round: one replica's figures, or a replicated target's sum
// with each replica's own.
void AddServerFigures(const ProbedTarget& target, const std::vector<absl::StatusOr<v1::StatsSnapshot>>& before,
                      const std::vector<absl::StatusOr<v1::StatsSnapshot>>& after, RoundResult* r) {
  if (!target.has_stats) {
    r->server = UnavailableServerFigures(target.stats_note);
    return;
  }
  const TargetLink& link = *target.link;
  for (int i = 0; i < link.replicas(); ++i) {
    ServerFigures one = !before[i].ok()  ? UnavailableServerFigures(std::string(before[i].status().message()))
                        : !after[i].ok() ? UnavailableServerFigures(std::string(after[i].status().message()))
                                         : ServerFiguresBetween(*before[i], *after[i]);
    if (link.replicas() == 1) {
      r->server = std::move(one);
    } else {
      r->server.AddReplica(one, link.replica_address(i));
      r->replicas.push_back({link.replica_address(i), std::move(one)});
    }
  }
}

// The server's CPU is part of the machine's busy time only when it runs here. A
// server inside this very process (the tests') is already in the client's CPU.
std::optional<double> ServerCpuOnThisMachine(const TargetLink& link, const ServerFigures& server) {
  if (!server.available) return std::nullopt;
  if (server.pid == getpid()) return 0.0;
  if (AllLoopback(link)) return server.cpu_user_seconds + server.cpu_system_seconds;
  return std::nullopt;
}

// The progress line of a round: warm-up, then seconds and req/s so far.
std::string ProgressLine(int round, const LoadOptions& options, const std::string& target, const WindowPlan& plan,
                         uint64_t ok_so_far) {
  const int64_t now = MonotonicNanos();
  if (now < plan.measure_start_ns) {
    return absl::StrFormat("round %d/%d  %-12s warm-up", round, options.rounds, target);
  }
  const double s = (now - plan.measure_start_ns) / 1e9;
  if (options.counted()) {
    return absl::StrFormat("round %d/%d  %-12s %8d/%d calls  %8.0f req/s", round, options.rounds, target, ok_so_far,
                           options.total, s > 0 ? ok_so_far / s : 0.0);
  }
  return absl::StrFormat("round %d/%d  %-12s %4.1f/%.1f s  %8.0f req/s", round, options.rounds, target, s,
                         absl::ToDoubleSeconds(options.duration), s > 0 ? ok_so_far / s : 0.0);
}

// One target's window of one round: warm-up, then the measured window between two
// stats snapshots, then the drain.
RoundResult MeasureRound(ProbedTarget& target, const LoadOptions& options, int round, int cpus,
                         const ProgressSink& progress) {
  TargetLink& link = *target.link;
  LoadDriver driver(&link, target.requests, options);
  const WindowPlan plan = WindowPlan::For(options);
  driver.Start(plan);
  auto tick = [&] {
    if (progress) progress(ProgressLine(round, options, link.spec().name, plan, driver.progress()));
  };
  WaitUntil(plan.measure_start_ns, tick);
  if (options.counted()) WaitFor([&] { return driver.warmup_drained(); }, tick);
  const std::vector<absl::StatusOr<v1::StatsSnapshot>> before = SnapshotAll(target, options);
  const WindowEdge open = OpenWindow();
  if (options.counted()) {
    driver.OpenWindow();
    WaitFor([&] { return driver.finished(); }, tick);
  } else {
    WaitUntil(plan.measure_end_ns, tick);
  }
  const WindowEdge close = CloseWindow();
  const std::vector<absl::StatusOr<v1::StatsSnapshot>> after = SnapshotAll(target, options);
  RoundResult r;
  r.round = round;
  r.window_start_unix_ms = open.unix_ms;
  r.window_end_unix_ms = close.unix_ms;
  r.client = driver.Join();
  r.client.client_cpu_seconds = close.process_cpu_seconds - open.process_cpu_seconds;
  AddServerFigures(target, before, after, &r);
  r.server.CountRpcsByClient(r.client.completed);
  r.machine =
      MachineWindowOf(open.busy_cpu_seconds, close.busy_cpu_seconds, (close.monotonic_ns - open.monotonic_ns) / 1e9,
                      cpus, r.client.client_cpu_seconds, ServerCpuOnThisMachine(link, r.server));
  return r;
}

// Adds a round to its target's totals and keeps it.
void AddRound(RoundResult r, TargetResult* t) {
  t->client.Merge(r.client);
  t->server.Merge(r.server);
  t->machine.Merge(r.machine);
  if (t->replicas.empty()) {
    for (const ReplicaFigures& rf : r.replicas) t->replicas.push_back({rf.address, ServerFigures()});
  }
  for (size_t i = 0; i < r.replicas.size(); ++i) t->replicas[i].server.Merge(r.replicas[i].server);
  t->rounds.push_back(std::move(r));
}

}  // namespace

std::string GrpcFramedRequest(const LoadOptions& options) {
  const std::string body = options.generic() ? options.call.requests.front()
                                             : RequestSet::Variant(RequestShape(options), 0).SerializeAsString();
  std::string framed(5, '\0');
  for (int i = 0; i < 4; ++i) framed[1 + i] = static_cast<char>((body.size() >> (8 * (3 - i))) & 0xff);
  return framed + body;
}

absl::StatusOr<RunReport> RunLoad(const LoadOptions& options, const std::string& command_line,
                                  const ProgressSink& progress) {
  absl::Status valid = ValidateLoadOptions(options);
  if (!valid.ok()) return valid;
  const int64_t run_start = MonotonicNanos();
  RunReport report;
  report.options = options;
  report.options.threads = ResolvedThreads(options);  // reports show the threads actually used
  report.environment = CurrentEnvironment(command_line);

  // Fail fast, before any load: every target must answer correctly.
  RequestSets request_sets(options);
  std::vector<ProbedTarget> targets;
  for (const TargetSpec& spec : options.targets) {
    absl::StatusOr<ProbedTarget> t = ProbeTarget(spec, options, &request_sets, &report.warnings);
    if (!t.ok()) return t.status();
    targets.push_back(std::move(*t));
    report.targets.emplace_back().spec = spec;
  }
  WaitForAlignedStart(options, progress);
  const int64_t cap_ns = absl::ToInt64Nanoseconds(options.run_timeout);
  int64_t last_round_ns = 0;
  for (int round = 1; round <= options.rounds; ++round) {
    const int64_t round_start = MonotonicNanos();
    if (cap_ns > 0 && round > 1 && round_start - run_start + last_round_ns > cap_ns) {
      report.warnings.push_back(absl::StrFormat(
          "stopped after round %d of %d: another round (%.1f s) would end past --run_timeout %s; the figures are "
          "of the rounds done",
          round - 1, options.rounds, last_round_ns / 1e9, absl::FormatDuration(options.run_timeout)));
      break;
    }
    for (size_t ti = 0; ti < targets.size(); ++ti) {
      AddRound(MeasureRound(targets[ti], options, round, report.environment.cpus(), progress), &report.targets[ti]);
    }
    last_round_ns = MonotonicNanos() - round_start;
  }
  for (const TargetResult& t : report.targets) AddTargetWarnings(report, t, &report.warnings);
  AddNoiseWarnings(report, &report.warnings);
  if (options.tls_skip_verify) {
    report.warnings.push_back(
        "TLS without verifying the servers' certificates (--tls_skip_verify): whoever answered was measured");
  }
  report.wall_seconds = (MonotonicNanos() - run_start) / 1e9;
  return report;
}

}  // namespace reco
