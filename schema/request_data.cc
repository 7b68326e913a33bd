// See request_data.h.
#include "schema/request_data.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "schema/json_message.h"

namespace reco {
namespace {

namespace pb = google::protobuf;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--data_file ", path, ": cannot read it (", std::strerror(errno), ")"));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

absl::StatusOr<std::string> SerializedJson(const pb::Message& prototype, absl::string_view json,
                                           absl::string_view source) {
  absl::StatusOr<std::unique_ptr<pb::Message>> message = ParseJsonMessage(prototype, json, source);
  if (!message.ok()) return message.status();
  return (*message)->SerializeAsString();
}

// A line that is a whole JSON object on its own.
bool IsJsonObject(absl::string_view line) {
  pb::Struct object;
  return pb::util::JsonStringToMessage(pb::StringPiece(line.data(), line.size()), &object).ok();
}

// JSON Lines when some line is a whole object alone and there is more than one line:
// the lines of a pretty-printed object never are ("{", "\"a\": 1,", "}").
absl::StatusOr<std::vector<std::string>> FromJsonFile(const pb::Message& prototype, const std::string& path,
                                                      const std::string& text) {
  std::vector<std::pair<int, absl::string_view>> lines;  // non-blank, with their 1-based number
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (!absl::StripAsciiWhitespace(line).empty()) lines.emplace_back(number, line);
  }
  if (lines.empty()) return absl::InvalidArgumentError(absl::StrCat("--data_file ", path, ": holds no JSON request"));
  bool json_lines = false;
  for (const auto& [unused, line] : lines) json_lines = json_lines || (lines.size() > 1 && IsJsonObject(line));
  if (!json_lines) {
    absl::StatusOr<std::string> request = SerializedJson(prototype, text, absl::StrCat("--data_file ", path));
    if (!request.ok()) return request.status();
    return std::vector<std::string>{*std::move(request)};
  }
  std::vector<std::string> requests;
  for (const auto& [line_number, line] : lines) {
    absl::StatusOr<std::string> request =
        SerializedJson(prototype, line, absl::StrCat("--data_file ", path, " line ", line_number));
    if (!request.ok()) return request.status();
    requests.push_back(*std::move(request));
  }
  return requests;
}

// The file as it is, once it is known to parse as the type with no field the type
// lacks (a message of another type usually parses, as unknown fields).
absl::StatusOr<std::vector<std::string>> FromBinaryFile(const pb::Message& prototype, const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  std::unique_ptr<pb::Message> message(prototype.New());
  const std::string type = prototype.GetDescriptor()->full_name();
  if (!message->ParseFromString(*bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--data_file ", path, " (--data_format binary): not a serialized ", type));
  }
  const pb::UnknownFieldSet& unknown = message->GetReflection()->GetUnknownFields(*message);
  if (unknown.field_count() > 0) {
    return absl::InvalidArgumentError(absl::StrCat("--data_file ", path, " (--data_format binary): field number ",
                                                   unknown.field(0).number(), " is not a field of ", type,
                                                   " (serialized from another type?)"));
  }
  return std::vector<std::string>{*std::move(bytes)};
}

}  // namespace

absl::StatusOr<RequestData::Format> ParseDataFormat(absl::string_view name) {
  if (name == "json") return RequestData::Format::kJson;
  if (name == "binary") return RequestData::Format::kBinary;
  return absl::InvalidArgumentError(absl::StrCat("--data_format ", name, ": want json or binary"));
}

absl::StatusOr<std::vector<std::string>> SerializedRequests(const pb::Descriptor* type, const RequestData& data) {
  if (data.json && data.file) return absl::InvalidArgumentError("--data and --data_file: give one, not both");
  if (data.format == RequestData::Format::kBinary && !data.file) {
    return absl::InvalidArgumentError("--data_format binary reads --data_file (--data is JSON); give --data_file");
  }
  // The factory makes the messages only to check and serialize them: none outlives it.
  pb::DynamicMessageFactory factory;
  const pb::Message& prototype = *factory.GetPrototype(type);
  if (data.json) {
    absl::StatusOr<std::string> request = SerializedJson(prototype, *data.json, "--data");
    if (!request.ok()) return request.status();
    return std::vector<std::string>{*std::move(request)};
  }
  if (!data.file) return std::vector<std::string>{std::string()};  // the empty message serializes to no bytes
  if (data.format == RequestData::Format::kBinary) return FromBinaryFile(prototype, *data.file);
  absl::StatusOr<std::string> text = ReadFile(*data.file);
  if (!text.ok()) return text.status();
  return FromJsonFile(prototype, *data.file, *text);
}

}  // namespace reco
