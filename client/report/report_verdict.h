// The verdict of a reco_load run: one line per target against the baseline (the
// first target), the answer a reader looks for first, written in ONE place so that
// the HTML report (its top) and the terminal table (its last lines) say the same.
//
// A line gives the target's paired ratio to the baseline (client/paired_ratio.h:
// the median of the per-round ratios [min-max]) for the two figures the project's
// claims rest on, server CPU per RPC and QPS, each in one of these words:
//   measurable       "x0.54 [0.52-0.55] server CPU per RPC"
//   spread holds 1   "no measurable difference in QPS [0.95-1.10]"
//   one round        "x1.43 QPS (1 round: no spread)"
//   figure absent    "server CPU per RPC not served (the target has no
//                     reco.v1.ServerStats service)" -- the server's own note, or
//                    "not served by heap (the baseline): ..." when the baseline's
//                    server gave none, so a missing figure is never a silent gap.
// A "*" after a ratio marks one over fewer rounds than the run had, as in the table.
// A target with failed calls says how many: a fast server that fails is no answer.
//
// Example (report_verdict_test.cc's three rounds: arena's CPU per RPC 0.54, 0.52 and
// 0.55 times heap's, its QPS 1.1, 1.5 and 1.2 times):
//   reco::VerdictHeading(report)   // "verdict against heap (median of 3 paired rounds [min-max]):"
//   reco::VerdictLines(report)[0]  // "arena: x0.54 [0.52-0.55] server CPU per RPC, x1.20 [1.10-1.50] QPS"
//   reco::WarningSummary(report)   // "4 warnings: 2 rounds disturbed by other processes, 2 others"
//
// Thread-safety: pure functions of the report.
#ifndef ARENA_GRPC_CLIENT_REPORT_REPORT_VERDICT_H_
#define ARENA_GRPC_CLIENT_REPORT_REPORT_VERDICT_H_

#include <string>
#include <vector>

#include "client/run_report.h"

namespace reco {

// "verdict against heap (median of 3 paired rounds [min-max]):"; "... (1 round: no
// spread):" for one round; "verdict: one target, nothing to compare".
std::string VerdictHeading(const RunReport& report);

// Target `target`'s line (target >= 1; the baseline has none).
std::string VerdictLine(const RunReport& report, size_t target);

// One line per target after the baseline, in target order; empty for one target.
std::vector<std::string> VerdictLines(const RunReport& report);

// The run's warnings in one line: "" without any; the warning itself when there is
// one; "N warnings: K rounds disturbed by other processes[, M others]" when rounds
// were disturbed (client/noise_guard.h's rule); else "N warnings, the first: ...".
std::string WarningSummary(const RunReport& report);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REPORT_VERDICT_H_
