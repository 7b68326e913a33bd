// The one mapping between a RunReport (client/run_report.h: the in-memory model the
// load run fills and every renderer reads) and reco.v1.LoadReport
// (proto/load_report.proto: the schema of the JSON report, its names and JSON types).
// RenderJson (client/report/report_renderers.h) and ReadReportFile (client/report/report_reader.h)
// are thin wrappers around them and protobuf's JSON util.
//
// LoadReportOf writes everything a reader of the report may want: per target and
// round the figures of client/report/report_figures.h, the paired ratios to the baseline,
// the share of the ceiling, and the client, server, replica and machine windows.
// RunReportOf reads back only what `reco_load merge` needs; see report_reader.h for
// what that is and what it refuses.
//
// Example:
//   std::string json;
//   reco::PrintReportJson(reco::LoadReportOf(report), &json);
//   reco::v1::LoadReport parsed;
//   google::protobuf::util::JsonStringToMessage(json, &parsed);
//   absl::StatusOr<reco::RunReport> back = reco::RunReportOf(parsed);   // client side exact
//
// Thread-safety: pure functions.
#ifndef ARENA_GRPC_CLIENT_REPORT_REPORT_PROTO_H_
#define ARENA_GRPC_CLIENT_REPORT_REPORT_PROTO_H_

#include <string>

#include "absl/status/statusor.h"
#include "client/run_report.h"
#include "google/protobuf/util/json_util.h"
#include "proto/load_report.pb.h"

namespace reco {

// `message` (a LoadReport or a part of one) as the report's JSON: snake_case keys (the
// proto's field names), every zero and empty list written, one key per line, and the
// keys of a map (figures, percentiles) in sorted order, so that the same report always
// prints the same text. Report content cannot make it fail: a string that is not
// UTF-8 (a command line, a server's note) loses its invalid bytes, and protobuf logs
// that on stderr.
google::protobuf::util::Status PrintReportJson(const google::protobuf::Message& message, std::string* json);

v1::LoadReport LoadReportOf(const RunReport& report);

// INVALID_ARGUMENT naming the part that is wrong (not a reco_load report, another
// histogram layout, no buckets, buckets that do not add up, an unknown profile or
// status code, targets that do not match the parameters).
absl::StatusOr<RunReport> RunReportOf(const v1::LoadReport& report);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_REPORT_PROTO_H_
