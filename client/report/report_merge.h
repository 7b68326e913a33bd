// MergeReports: the reports of several reco_load processes that drove the same
// servers AT THE SAME TIME (one machine's client was not enough, or the load comes
// from several machines), merged exactly into one report: `reco_load merge`.
//
// Exact: per target and per round the client figures merge with ClientFigures::Merge,
// so latency histograms add bucket by bucket (percentiles of the merge are those of
// one histogram that had recorded every input's requests -- never an average of
// percentiles) and counts (ok, completed, errors by code, bytes) add.
//
// Time is NOT added. The inputs ran concurrently, so a window's merged `seconds` is
// the longest of the inputs' windows, and the merged QPS is the total OK responses
// over that window: the load all clients together put on the server. (Merging runs
// made one after another would overstate QPS by the number of inputs: don't.)
// client_cpu_seconds add (each process paid its own CPU); wall_seconds is the max.
// Rounds pair by number, and every input's round r must have run at the same time:
// from each round's wall-clock window (window_start/end_unix_ms), windows that do not
// overlap at all are refused, naming both files, and an overlap under 90% of the
// shortest window gives a warning. Inputs without window times (older reports) are
// not checked.
//
// Inputs must agree on the targets (names, same order), rounds, duration, loop
// (open/closed), items and profile; otherwise FAILED_PRECONDITION naming the file and
// the difference. The same run given twice (same start time, command line and counts)
// is refused too: it would count every request twice.
//
// Not merged: the server side (each input read its own ServerStats deltas of the same
// servers over overlapping windows; adding them would count the server twice) and the
// machine windows. Both are marked unavailable / n/a, with a warning pointing to the
// inputs. The options are the first input's, with rate, concurrency, connections and threads
// summed (the load offered in total); environment.merged_from lists the inputs; every
// input's warnings are carried over, prefixed by its file name.
//
// Example:
//   std::vector<reco::NamedReport> in = {{"a.json", *reco::ReadReportFile("a.json")},
//                                        {"b.json", *reco::ReadReportFile("b.json")}};
//   absl::StatusOr<reco::RunReport> m = reco::MergeReports(in, "reco_load merge a.json b.json");
//   m->targets[0].client.ok;   // a's ok + b's ok
//
// Thread-safety: a pure function.
#ifndef ARENA_GRPC_CLIENT_REPORT_REPORT_MERGE_H_
#define ARENA_GRPC_CLIENT_REPORT_REPORT_MERGE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/run_report.h"

namespace reco {

struct NamedReport {
  std::string name;  // the file it came from, for messages and merged_from
  RunReport report;
};

// The merge of `inputs` (at least one); `command_line` becomes the merged report's.
absl::StatusOr<RunReport> MergeReports(const std::vector<NamedReport>& inputs, const std::string& command_line);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REPORT_MERGE_H_
