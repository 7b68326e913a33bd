// RunReport: everything one reco_load run measured, the input of every renderer
// (table, JSON, CSV, HTML).
//
// Per target: one RoundResult per round (client and server side of that window, and
// what the rest of the machine did meanwhile) and their totals (ClientFigures,
// ServerFigures and MachineWindow merged over the rounds). The first target is the
// baseline of every ratio; ratios are paired by round (client/paired_ratio.h).
// RunEnvironment records what the numbers depend on: library versions, CPU model,
// the malloc in use.
//
// Example:
//   const reco::TargetResult& t = report.targets[0];
//   t.client.qps();                      // OK responses per second, all rounds
//   t.QpsRange();                        // {min, max} of the per-round QPS
//   t.server.PerRpc(t.server.build.allocations.allocs)
//   report.PairedQpsShareOfCeiling(1);   // median [min-max] of the per-round shares
//
// Thread-safety: plain values.
#ifndef ARENA_GRPC_CLIENT_RUN_REPORT_H_
#define ARENA_GRPC_CLIENT_RUN_REPORT_H_

#include <istream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/client_figures.h"
#include "client/load_options.h"
#include "client/machine_cpu.h"
#include "client/paired_ratio.h"
#include "client/server_figures.h"
#include "proto/load_report.pb.h"

namespace reco {

struct RoundResult {
  int round = 0;  // 1-based
  // Wall clock (Unix ms) at the start and end of the measured window; 0 when unknown
  // (a report from before they were written). `reco_load merge` checks with them that
  // its inputs' windows ran at the same time.
  int64_t window_start_unix_ms = 0;
  int64_t window_end_unix_ms = 0;
  ClientFigures client;
  ServerFigures server;  // a replicated target: its replicas' figures added (AddReplica)
  MachineWindow machine;
  // Each backend's own figures, in the order of TargetLink's replicas; empty for a
  // single HOST:PORT target (its figures are `server`).
  std::vector<ReplicaFigures> replicas;
};

struct TargetResult {
  TargetSpec spec;
  std::vector<RoundResult> rounds;
  ClientFigures client;                  // all rounds merged
  ServerFigures server;                  // all rounds merged
  MachineWindow machine;                 // all rounds merged
  std::vector<ReplicaFigures> replicas;  // each backend's, all rounds merged

  // Min and max of the per-round QPS.
  std::pair<double, double> QpsRange() const;
};

// The CPU as /proc/cpuinfo names it: "model name", and "family F model M stepping S"
// when the first processor's block has all three (x86), else an empty signature.
struct CpuIdentity {
  std::string model;
  std::string signature;
};
CpuIdentity ReadCpuIdentity(std::istream& cpuinfo);

// What the numbers depend on (library versions, the CPU, the malloc, the command), as
// the report's JSON holds it: the report's own message (proto/load_report.proto), no
// copy of it to map.
using RunEnvironment = v1::ReportEnvironment;
// The values for this process and machine.
RunEnvironment CurrentEnvironment(const std::string& command_line);

// What one `--require` found (client/report/requirement.h evaluates it), as the
// report's JSON holds it beside the figures it was judged on: the paired ratio's
// median, min and max (null: no round measured it), whether it passed, why not
// ("worst round 2: x0.81", "not measured", "not measured in round 2"), and the line
// printed ("require EXPR: x0.52 [0.48-0.55] PASS").
using RequirementResult = v1::ReportRequirement;

struct RunReport {
  LoadOptions options;
  RunEnvironment environment;
  std::vector<TargetResult> targets;
  // Things a reader must know (the client fell behind its schedule, a target had no
  // stats service, errors ...).
  std::vector<std::string> warnings;
  double wall_seconds = 0;
  // Each --require, in the order given; empty without one.
  std::vector<RequirementResult> requirements;

  // Errors over completions, all targets and rounds.
  double error_rate() const;

  // The ceiling (reco_server --mode ceiling: the transport's limit): the first target
  // named "ceiling" or whose server reports mode "ceiling"; -1 when there is none.
  int CeilingIndex() const;
  // Target i's QPS over all rounds as a share of the ceiling's (0.42 = 42%); nullopt
  // without a ceiling or when the ceiling answered nothing.
  std::optional<double> QpsShareOfCeiling(size_t i) const;
  // The same share round by round (round r's QPS over the ceiling's round r): its
  // median and min-max; nullopt without a ceiling or a round where it answered.
  std::optional<PairedRatio> PairedQpsShareOfCeiling(size_t i) const;
};

// Whether a target is the ceiling (reco_server --mode ceiling: the transport's
// limit): named "ceiling", or its server reports that mode ("" when unknown).
bool IsCeilingTarget(const std::string& name, const std::string& server_mode);

// Percentiles every renderer shows, and their labels ("p50", ..., "p99.9").
inline constexpr double kReportPercentiles[] = {50, 90, 99, 99.9};
std::string PercentileLabel(double p);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_RUN_REPORT_H_
