// ReportFigures: the named figures the table, CSV and HTML reports show, each
// computed the same way from a (client, server, machine) window -- a round's or the
// run's totals -- so every renderer prints the same number for the same thing, and
// RatioToBaseline, the paired ratio every renderer prints beside it.
//
// Example:
//   for (const reco::Figure& f : reco::ReportFigures(report.options)) {
//     std::optional<double> v = f.Of(target);              // run totals; nullopt: n/a
//     std::string text = reco::FormatFigure(f, v);         // "12345" / "n/a"
//     std::optional<reco::PairedRatio> r = reco::RatioToBaseline(report, i, f);
//   }
//
// Thread-safety: the returned list is immutable.
#ifndef ARENA_GRPC_CLIENT_REPORT_REPORT_FIGURES_H_
#define ARENA_GRPC_CLIENT_REPORT_REPORT_FIGURES_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/client_figures.h"
#include "client/load_options.h"
#include "client/machine_cpu.h"
#include "client/paired_ratio.h"
#include "client/run_report.h"
#include "client/server_figures.h"

namespace reco {

struct Figure {
  std::string key;      // JSON/CSV name: "qps", "latency_p99_ms", "server_build_allocs_per_rpc"
  std::string label;    // terminal/HTML label: "p99 latency (ms)"
  std::string section;  // "client" (what the client measured) or "server"
  int decimals = 0;
  // nullopt when the figure does not apply (server side unavailable, closed loop ...).
  std::function<std::optional<double>(const ClientFigures&, const ServerFigures&, const MachineWindow&)> value;
  // False for a figure whose ratio to the baseline means nothing (what OTHER
  // processes did): RatioToBaseline gives nullopt for it.
  bool has_ratio = true;

  std::optional<double> Of(const RoundResult& r) const { return value(r.client, r.server, r.machine); }
  std::optional<double> Of(const TargetResult& t) const { return value(t.client, t.server, t.machine); }
};

// The figures for a run with these options (open-loop figures only for open loops).
std::vector<Figure> ReportFigures(const LoadOptions& options);

// The figures the table shows for this report: ReportFigures less those no target has
// a value of (a foreign service has no release phase, a server without stats no
// server side), whose labels go to `left_out` (when not null) for the one line that
// names them.
std::vector<Figure> ShownFigures(const RunReport& report, std::vector<std::string>* left_out);
// "left out, no target reported them: LABEL, LABEL", or "" for none.
std::string LeftOutLine(const std::vector<std::string>& left_out);

// "12345.68" with the figure's decimals, "n/a" for nullopt.
std::string FormatFigure(const Figure& figure, std::optional<double> value);

// Target `target`'s figure over the baseline's (report.targets[0]), paired round by
// round (PairRounds); nullopt when no round pairs or the figure has no ratio.
std::optional<PairedRatio> RatioToBaseline(const RunReport& report, size_t target, const Figure& figure);
// The same over any other target's rounds (`--require`'s TARGET/BASELINE,
// client/report/requirement.h): RatioToBaseline is RatioBetween(report, target, 0, figure).
std::optional<PairedRatio> RatioBetween(const RunReport& report, size_t target, size_t baseline, const Figure& figure);

// For a target with replicas, each backend's share of the RPCs its servers answered,
// so that an uneven spread shows (the table and the HTML print it):
//   "arena_pool replicas: 127.0.0.1:5001 34%, :5002 33%, :5003 33% (spread 33-34% of 3120 server RPCs)"
// A host repeated from the previous backend is left out; a replica without figures is "n/a".
std::string ReplicaShareLine(const TargetResult& t);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REPORT_FIGURES_H_
