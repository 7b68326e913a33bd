// The JSON report, both ways: RenderJson (report_renderers.h) and ParseReportJson /
// ReadReportFile (report_reader.h), the text side of the mapping in report_proto.h.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/report/report_proto.h"
#include "client/report/report_reader.h"
#include "client/report/report_renderers.h"

namespace reco {

std::string RenderJson(const RunReport& report) {
  std::string json;
  // Only a type missing from the descriptor pool could fail (report_proto.h): then no
  // document rather than half of one.
  if (!PrintReportJson(LoadReportOf(report), &json).ok()) return "";
  return json + "\n";
}

absl::StatusOr<RunReport> ParseReportJson(absl::string_view json_text) {
  google::protobuf::util::JsonParseOptions options;
  // A report of a newer reco_load, with keys this one does not know, still merges.
  options.ignore_unknown_fields = true;
  v1::LoadReport report;
  const google::protobuf::util::Status parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json_text.data(), json_text.size()), &report, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not valid JSON of a reco_load report: ", parsed.message().ToString()));
  }
  return RunReportOf(report);
}

absl::StatusOr<RunReport> ReadReportFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<RunReport> r = ParseReportJson(text.str());
  if (!r.ok()) return absl::Status(r.status().code(), absl::StrCat(path, ": ", r.status().message()));
  return r;
}

}  // namespace reco
