// See load_run.h.
#include "client/load_run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/load_driver.h"
#include "client/machine_cpu.h"
#include "client/noise_guard.h"
#include "client/request_set.h"
#include "client/target_link.h"

namespace reco {
namespace {

// Above this p99 lag an open loop is not keeping its schedule: the rate asked for is
// not the rate the server saw (the corrected latency still tells the truth).
constexpr int64_t kLagWarningNanos = 10'000'000;

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

void AddWarnings(const RunReport& report, const TargetResult& t, std::vector<std::string>* warnings) {
  const LoadOptions& o = report.options;
  const ClientFigures& c = t.client;
  if (c.errors() > 0) {
    std::vector<std::string> parts;
    for (int code = 1; code < ClientFigures::kStatusCodes; ++code) {
      if (c.errors_by_code[code]) parts.push_back(absl::StrCat(StatusCodeName(code), " ", c.errors_by_code[code]));
    }
    if (c.wrong_item_count) parts.push_back(absl::StrCat("wrong item count ", c.wrong_item_count));
    if (c.wrong_content) parts.push_back(absl::StrCat("wrong content ", c.wrong_content));
    warnings->push_back(absl::StrCat(t.spec.name, ": ", c.errors(), " errors of ", c.completed, " (",
                                     absl::StrJoin(parts, ", "), ")"));
  }
  if (o.open_loop()) {
    const int64_t lag_p99 = static_cast<int64_t>(c.schedule_lag.Percentile(99));
    if (c.unsent > 0 || lag_p99 > kLagWarningNanos) {
      warnings->push_back(absl::StrFormat(
          "%s: the client fell behind its schedule of %g req/s: schedule lag p99 %.1f ms, max %.1f ms; "
          "%d of %d scheduled requests never sent (raise --concurrency or lower --rate)",
          t.spec.name, o.rate, lag_p99 / 1e6, c.schedule_lag.max() / 1e6, c.unsent, c.scheduled));
    }
  }
  // With balanced calls each of N replicas serves about 1/N of them; one under half
  // of that is a skew a reader must see (pick_first, or a connection pinned to a pod).
  if (t.replicas.size() > 1 && t.server.available && t.server.rpcs > 0) {
    const double fair = 1.0 / t.replicas.size();
    for (const ReplicaFigures& r : t.replicas) {
      const double share = static_cast<double>(r.server.rpcs) / t.server.rpcs;
      if (share < fair / 2) {
        warnings->push_back(absl::StrFormat(
            "%s: replica %s served %.0f%% of the RPCs, under half its fair share (%.0f%% of %d replicas; --lb_policy %s)",
            t.spec.name, r.address, 100 * share, 100 * fair, static_cast<int>(t.replicas.size()), o.lb_policy));
      }
    }
  }
  if (!t.server.available) {
    warnings->push_back(absl::StrCat(t.spec.name, ": server-side figures unavailable (", t.server.note,
                                     "); client-side figures only"));
  } else if (!t.server.note.empty()) {
    warnings->push_back(absl::StrCat(t.spec.name, ": ", t.server.note));
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

v1::RecommendRequest RequestShape(const LoadOptions& options) {
  v1::RecommendRequest shape;
  shape.set_item_count(options.items);
  shape.set_text_profile(options.profile);
  shape.set_seed(options.seed);
  return shape;
}

}  // namespace

std::string GrpcFramedRequest(const LoadOptions& options) {
  const RequestSet requests(DefaultCatalogue(), RequestShape(options), 1);
  const std::string body = requests.request_message(0).SerializeAsString();
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
  // Reports show the threads actually used.
  report.options.threads = ResolvedThreads(options);
  report.environment = RunEnvironment::Current(command_line);

  // Each target's replies are checked against the builder's, copied from the
  // catalogue the target reports in its stats (a target without stats: the default
  // catalogue). A ceiling server (reco_server --mode ceiling) answers every request
  // with the one reply it serialized at start-up, for reco_load's first request by
  // default. It is sent only that request, so that every reply is still checked (item
  // count, and bytes on the sample) against what the builder makes for the request sent.
  std::vector<std::unique_ptr<RequestSet>> request_sets;  // one per (catalogue, variants) in use
  auto requests_for = [&](const CatalogueOptions& catalogue, int variants) -> const RequestSet* {
    for (const auto& set : request_sets) {
      const CatalogueOptions& c = set->catalogue().options();
      if (c.seed == catalogue.seed && c.items_per_profile == catalogue.items_per_profile && set->size() == variants) {
        return set.get();
      }
    }
    request_sets.push_back(
        std::make_unique<RequestSet>(*Catalogue::Shared(catalogue), RequestShape(options), variants));
    return request_sets.back().get();
  };
  std::vector<const RequestSet*> target_requests;

  // Fail fast, before any load: every target must answer correctly.
  std::vector<std::unique_ptr<TargetLink>> links;
  std::vector<bool> has_stats;
  std::vector<std::string> stats_note;
  for (const TargetSpec& spec : options.targets) {
    links.push_back(std::make_unique<TargetLink>(spec, options.connections, options.lookahead_bytes,
                                                 TlsDial{options.tls_ca_pem, options.tls_server_name},
                                                 options.lb_policy));
    if (!links.back()->replica_note().empty()) {
      report.warnings.push_back(absl::StrCat(spec.name, ": ", links.back()->replica_note()));
    }
    // Stats first, for the catalogue; an unreachable target fails the probe below
    // with the clearer message.
    absl::StatusOr<v1::StatsSnapshot> s = links.back()->Snapshot(options.probe_deadline);
    CatalogueOptions catalogue;
    if (s.ok() && s->has_catalogue()) {
      catalogue.seed = s->catalogue().seed();
      catalogue.items_per_profile = s->catalogue().items_per_profile();
      if (absl::Status valid = ValidateCatalogueOptions(catalogue); !valid.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat(spec.name, " reports a catalogue reco_load cannot build: ", valid.message()));
      }
    }
    const bool ceiling = spec.name == "ceiling" || (s.ok() && s->mode() == "ceiling");
    const RequestSet* requests = requests_for(catalogue, ceiling ? 1 : options.variants);
    absl::Status up = links.back()->Probe(*requests, options.probe_deadline);
    if (!up.ok()) return up;
    has_stats.push_back(s.ok());
    stats_note.push_back(s.ok() ? ""
                         : s.status().code() == absl::StatusCode::kUnimplemented
                             ? "the target has no reco.v1.ServerStats service"
                             : std::string(s.status().message()));
    target_requests.push_back(requests);
    if (ceiling && options.variants > 1) {
      report.warnings.push_back(absl::StrCat(
          spec.name, ": a ceiling server answers every request with one reply built at start-up; it was sent only "
                     "the first request (--variants ignored for it) and its replies were checked against that "
                     "request's bytes"));
    }
    TargetResult t;
    t.spec = spec;
    report.targets.push_back(std::move(t));
  }

  if (options.align_start > absl::ZeroDuration()) {
    // The wall clock, not the monotonic one: the processes to line up may run on
    // different machines, whose clocks NTP keeps within milliseconds of each other.
    const absl::Time start = NextAlignedStart(absl::Now(), options.align_start);
    const std::string line = absl::StrCat("waiting for ", absl::FormatTime("%H:%M:%S", start, absl::UTCTimeZone()),
                                          " UTC (--align_start ", absl::FormatDuration(options.align_start), ")");
    WaitUntil(MonotonicNanos() + absl::ToInt64Nanoseconds(start - absl::Now()), [&] {
      if (progress) progress(line);
    });
  }
  for (int round = 1; round <= options.rounds; ++round) {
    for (size_t ti = 0; ti < links.size(); ++ti) {
      TargetLink& link = *links[ti];
      LoadDriver driver(&link, target_requests[ti], options);
      const WindowPlan plan = WindowPlan::StartingNow(options.warmup, options.duration);
      driver.Start(plan);
      auto tick = [&] {
        if (!progress) return;
        const int64_t now = MonotonicNanos();
        if (now < plan.measure_start_ns) {
          progress(absl::StrFormat("round %d/%d  %-12s warm-up", round, options.rounds, link.spec().name));
        } else {
          const double s = (now - plan.measure_start_ns) / 1e9;
          progress(absl::StrFormat("round %d/%d  %-12s %4.1f/%.1f s  %8.0f req/s", round, options.rounds,
                                   link.spec().name, s, absl::ToDoubleSeconds(options.duration),
                                   s > 0 ? driver.progress() / s : 0.0));
        }
      };
      WaitUntil(plan.measure_start_ns, tick);
      // Every replica before and after the window: each answers for its own calls.
      auto snapshot_all = [&] {
        std::vector<absl::StatusOr<v1::StatsSnapshot>> s;
        for (int i = 0; has_stats[ti] && i < link.replicas(); ++i) s.push_back(link.Snapshot(options.probe_deadline, i));
        return s;
      };
      const std::vector<absl::StatusOr<v1::StatsSnapshot>> before = snapshot_all();
      // The machine's busy CPU is read right beside the client's own, so that the two
      // cover the same stretch of time (the noise guard subtracts one from the other).
      const int64_t machine_start_ns = MonotonicNanos();
      const int64_t window_start_unix_ms = absl::ToUnixMillis(absl::Now());
      const std::optional<double> busy_start = ReadBusyCpuSeconds();
      const double cpu_start = ProcessCpuSeconds();
      WaitUntil(plan.measure_end_ns, tick);
      const double cpu_end = ProcessCpuSeconds();
      const std::optional<double> busy_end = ReadBusyCpuSeconds();
      const int64_t machine_end_ns = MonotonicNanos();
      const int64_t window_end_unix_ms = absl::ToUnixMillis(absl::Now());
      const std::vector<absl::StatusOr<v1::StatsSnapshot>> after = snapshot_all();
      RoundResult r;
      r.round = round;
      r.window_start_unix_ms = window_start_unix_ms;
      r.window_end_unix_ms = window_end_unix_ms;
      r.client = driver.Join();
      r.client.client_cpu_seconds = cpu_end - cpu_start;
      if (!has_stats[ti]) {
        r.server = UnavailableServerFigures(stats_note[ti]);
      } else {
        for (int i = 0; i < link.replicas(); ++i) {
          ServerFigures one = !before[i].ok() ? UnavailableServerFigures(std::string(before[i].status().message()))
                              : !after[i].ok() ? UnavailableServerFigures(std::string(after[i].status().message()))
                                               : ServerFiguresBetween(*before[i], *after[i]);
          if (link.replicas() == 1) {
            r.server = std::move(one);
          } else {
            r.server.AddReplica(one, link.replica_address(i));
            r.replicas.push_back({link.replica_address(i), std::move(one)});
          }
        }
      }
      // The server's CPU is part of the machine's busy time only when it runs here. A
      // server inside this very process (the tests') is already in the client's CPU.
      std::optional<double> server_cpu;
      if (r.server.available && r.server.pid == getpid()) {
        server_cpu = 0.0;
      } else if (r.server.available && AllLoopback(link)) {
        server_cpu = r.server.cpu_user_seconds + r.server.cpu_system_seconds;
      }
      r.machine = MachineWindowOf(busy_start, busy_end, (machine_end_ns - machine_start_ns) / 1e9,
                                  report.environment.cpus, r.client.client_cpu_seconds, server_cpu);
      TargetResult& t = report.targets[ti];
      t.client.Merge(r.client);
      t.server.Merge(r.server);
      t.machine.Merge(r.machine);
      if (t.replicas.empty()) {
        for (const ReplicaFigures& rf : r.replicas) t.replicas.push_back({rf.address, ServerFigures()});
      }
      for (size_t i = 0; i < r.replicas.size(); ++i) t.replicas[i].server.Merge(r.replicas[i].server);
      t.rounds.push_back(std::move(r));
    }
  }
  for (const TargetResult& t : report.targets) AddWarnings(report, t, &report.warnings);
  AddNoiseWarnings(report, &report.warnings);
  report.wall_seconds = (MonotonicNanos() - run_start) / 1e9;
  return report;
}

}  // namespace reco
