// See noise_guard.h.
#include "client/noise_guard.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace reco {

bool Disturbed(const MachineWindow& machine) {
  const std::optional<double> share = machine.OtherShare();
  return share && *share > kDisturbedOtherCpuShare;
}

void AddNoiseWarnings(const RunReport& report, std::vector<std::string>* warnings) {
  const int threads = ResolvedThreads(report.options);
  const int cpus = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  for (const TargetResult& t : report.targets) {
    for (const RoundResult& r : t.rounds) {
      if (!Disturbed(r.machine)) continue;
      warnings->push_back(absl::StrFormat(
          "%s round %d: other processes used %.0f%% of the machine's CPU during the window; its figures are "
          "disturbed (rerun on a quiet machine)",
          t.spec.name, r.round, *r.machine.OtherShare() * 100));
    }
    const ClientFigures& c = t.client;
    // A server inside this process (the tests') has its CPU in the client's: no verdict.
    if (c.seconds <= 0 || (t.server.available && t.server.pid == getpid())) continue;
    const double cpu_per_thread = c.client_cpu_seconds / c.seconds / threads;
    if (cpu_per_thread >= kClientBusyShare) {
      // More threads than CPUs only adds switching: then the client needs a machine of its own.
      const std::string advice = threads >= cpus
                                     ? absl::StrFormat("run reco_load on another machine: this one has %d CPU(s)", cpus)
                                 : threads + 1 > report.options.concurrency
                                     ? absl::StrFormat("try --threads %d --concurrency %d", threads + 1, threads + 1)
                                     : absl::StrFormat("try --threads %d", threads + 1);
      warnings->push_back(absl::StrFormat(
          "%s: the client used %.0f%% of a CPU per driver thread (%d thread(s)) during the windows; the client may "
          "be the bottleneck for this target (%s)",
          t.spec.name, cpu_per_thread * 100, threads, advice));
    }
  }
}

NoiseSummary SummarizeNoise(const RunReport& report) {
  NoiseSummary s;
  for (const TargetResult& t : report.targets) {
    for (const RoundResult& r : t.rounds) {
      ++s.rounds;
      s.judged += r.machine.OtherShare().has_value() ? 1 : 0;
      if (!Disturbed(r.machine)) continue;
      const double share = *r.machine.OtherShare();
      s.min_other_share = s.disturbed == 0 ? share : std::min(s.min_other_share, share);
      s.max_other_share = s.disturbed == 0 ? share : std::max(s.max_other_share, share);
      ++s.disturbed;
    }
  }
  return s;
}

std::string NoiseSummaryLine(const NoiseSummary& s) {
  if (s.disturbed == 0) return "";
  const int low = static_cast<int>(s.min_other_share * 100 + 0.5);
  const int high = static_cast<int>(s.max_other_share * 100 + 0.5);
  const std::string used = low == high ? absl::StrCat(low, "%") : absl::StrCat(low, "-", high, "%");
  const std::string why = absl::StrCat(" disturbed (other processes used ", used, " of the CPU); ");
  if (s.disturbed == s.rounds) {
    const std::string all =
        s.rounds == 1 ? "the only measured round was" : absl::StrCat("all ", s.rounds, " measured rounds were");
    return absl::StrCat(all, why, "the figures are not comparable with a quiet machine's");
  }
  return absl::StrCat(s.disturbed, " of ", s.rounds, " measured rounds ", s.disturbed == 1 ? "was" : "were", why,
                      "their figures are not comparable with a quiet machine's (the warnings name them)");
}

namespace {

// Why the rounds of `t` whose other-processes share is unknown could not be judged.
std::string WhyTargetNotJudged(const TargetResult& t) {
  if (!t.server.available) return absl::StrCat(t.spec.name, "'s server reports no CPU (no reco.v1.ServerStats)");
  for (const RoundResult& r : t.rounds) {
    if (r.machine.windows == 0) return absl::StrCat(t.spec.name, "'s rounds carry no figures of the machine");
    if (!r.machine.busy_cpu_seconds) return "the machine's CPU (/proc/stat) was not readable";
  }
  return absl::StrCat(t.spec.name, "'s server is not on this machine");
}

// Why rounds were not judged, once per reason, in the targets' order.
std::string WhyNotJudged(const RunReport& report) {
  std::vector<std::string> why;
  for (const TargetResult& t : report.targets) {
    for (const RoundResult& r : t.rounds) {
      if (r.machine.OtherShare()) continue;
      if (std::string w = WhyTargetNotJudged(t); std::find(why.begin(), why.end(), w) == why.end()) why.push_back(w);
      break;
    }
  }
  return absl::StrJoin(why, "; ");
}

}  // namespace

std::string NoiseVerdict(const RunReport& report) {
  const NoiseSummary s = SummarizeNoise(report);
  const bool any_recorded = std::any_of(report.targets.begin(), report.targets.end(), [](const TargetResult& t) {
    return std::any_of(t.rounds.begin(), t.rounds.end(), [](const RoundResult& r) { return r.machine.windows > 0; });
  });
  if (!any_recorded) return "";  // a report from before the guard, or made by hand
  if (s.judged == 0) {
    return absl::StrCat("noise guard: could not judge ",
                        s.rounds == 1 ? "the only measured round" : absl::StrCat("the ", s.rounds, " measured rounds"),
                        ": ", WhyNotJudged(report));
  }
  std::string line = absl::StrCat("noise guard: ", s.disturbed, " of ", s.judged, " measured rounds disturbed");
  if (s.disturbed == 0) {
    absl::StrAppend(&line, " (other processes stayed within ", static_cast<int>(kDisturbedOtherCpuShare * 100),
                    "% of the machine's CPU)");
  } else {
    const int low = static_cast<int>(s.min_other_share * 100 + 0.5);
    const int high = static_cast<int>(s.max_other_share * 100 + 0.5);
    absl::StrAppend(&line, " (other processes used ", low == high ? absl::StrCat(low) : absl::StrCat(low, "-", high),
                    "% of the machine's CPU): ", s.disturbed == s.judged ? "the" : "their",
                    " figures are not comparable with a quiet machine's");
  }
  if (s.judged < s.rounds) absl::StrAppend(&line, "; ", s.rounds - s.judged, " not judged: ", WhyNotJudged(report));
  return line;
}

}  // namespace reco
