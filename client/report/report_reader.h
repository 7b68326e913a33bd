// ReadReport: a reco_load JSON report (RenderJson, client/report/report_renderers.h) back
// into a RunReport, so that the reports of several reco_load processes can be merged
// (client/report/report_merge.h) and rendered again.
//
// What comes back:
// - options: the run's parameters (targets, durations, rounds, loop, rate, items,
//   profile, seed, ...); tls_ca_pem is never in a report and stays empty;
// - environment, warnings, wall_seconds, as written;
// - per target and per round, the client side in full (ClientFigures: every count and
//   every histogram, rebuilt from its "buckets" and exact "sum_ns", "min_ns" and
//   "max_ns", so percentiles are those of the original);
// - the server side is NOT read back: each ServerFigures is unavailable, its note
//   saying so (the server side has many fields of gauges and phase histograms whose
//   merge across concurrent clients of one server would count the server twice);
//   the machine windows stay empty (n/a).
// A report without histogram buckets (written by a reco_load before they existed),
// one whose "histogram_layout" differs from this build's LatencyHistogram, or a
// document that is not a reco_load report is refused with INVALID_ARGUMENT. The
// schema is proto/load_report.proto, read by protobuf's JSON util (report_proto.h):
// keys this build does not know are ignored, so a report of a newer reco_load still
// reads, and a key it knows but does not find reads as 0 or empty.
//
// Example:
//   absl::StatusOr<reco::RunReport> r = reco::ReadReportFile("runs/a.json");
//   // !r.ok(): "runs/a.json: not a reco_load report (no \"tool\": \"reco_load\")"
//   r->targets[0].client.latency.Percentile(99);   // as in the original run
//
// Thread-safety: pure functions.
#ifndef ARENA_GRPC_CLIENT_REPORT_REPORT_READER_H_
#define ARENA_GRPC_CLIENT_REPORT_REPORT_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/run_report.h"

namespace reco {

// The note of every ServerFigures a read report holds.
inline constexpr char kServerNotReadBack[] = "server figures are not read back from a JSON report";

// `json_text` -> RunReport; INVALID_ARGUMENT saying what is wrong (unparsable JSON or a
// value of the wrong type, not a reco_load report, no histogram buckets, ...).
absl::StatusOr<RunReport> ParseReportJson(absl::string_view json_text);

// The file at `path`, parsed as above; NOT_FOUND when it cannot be read. Every error
// message starts with the path.
absl::StatusOr<RunReport> ReadReportFile(const std::string& path);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REPORT_READER_H_
