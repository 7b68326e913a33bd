// See request_data.h.
#include "schema/request_data.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
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

void AppendDelimited(absl::string_view message, std::string* stream) {
  pb::io::StringOutputStream out(stream);
  pb::io::CodedOutputStream coded(&out);
  coded.WriteVarint32(static_cast<uint32_t>(message.size()));
  coded.WriteRaw(message.data(), static_cast<int>(message.size()));
}

// A line that is a whole JSON request on its own: an object, or in a stream an array.
bool IsJsonRequest(absl::string_view line, bool stream) {
  pb::Value value;
  return pb::util::JsonStringToMessage(pb::StringPiece(line.data(), line.size()), &value).ok() &&
         (value.has_struct_value() || (stream && value.has_list_value()));
}

// JSON Lines when some line is a whole object alone and there is more than one line:
// the lines of a pretty-printed object never are ("{", "\"a\": 1,", "}").
absl::StatusOr<std::vector<std::string>> FromJsonFile(const pb::Message& prototype, const std::string& path,
                                                      const std::string& text, bool stream) {
  std::vector<std::pair<int, absl::string_view>> lines;  // non-blank, with their 1-based number
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (!absl::StripAsciiWhitespace(line).empty()) lines.emplace_back(number, line);
  }
  if (lines.empty()) return absl::InvalidArgumentError(absl::StrCat("--data_file ", path, ": holds no JSON request"));
  bool json_lines = false;
  for (const auto& [unused, line] : lines) json_lines = json_lines || (lines.size() > 1 && IsJsonRequest(line, stream));
  if (!json_lines) {
    absl::StatusOr<std::string> request =
        SerializedJsonRequest(prototype, text, absl::StrCat("--data_file ", path), stream);
    if (!request.ok()) return request.status();
    return std::vector<std::string>{*std::move(request)};
  }
  std::vector<std::string> requests;
  for (const auto& [line_number, line] : lines) {
    absl::StatusOr<std::string> request =
        SerializedJsonRequest(prototype, line, absl::StrCat("--data_file ", path, " line ", line_number), stream);
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

absl::StatusOr<std::string> SerializedJsonRequest(const pb::Message& prototype, absl::string_view json,
                                                  absl::string_view source, bool stream) {
  absl::StatusOr<std::optional<std::vector<absl::string_view>>> array = std::nullopt;
  if (stream) array = JsonArrayElements(json, source);
  if (!array.ok()) return array.status();
  if (!stream || !array->has_value()) {
    absl::StatusOr<std::unique_ptr<pb::Message>> message = ParseJsonMessage(prototype, json, source);
    if (!message.ok()) return message.status();
    std::string bytes = (*message)->SerializeAsString();
    if (!stream) return bytes;
    std::string one;
    AppendDelimited(bytes, &one);
    return one;
  }
  std::string messages;
  for (size_t i = 0; i < (*array)->size(); ++i) {
    absl::StatusOr<std::unique_ptr<pb::Message>> message =
        ParseJsonMessage(prototype, (**array)[i], absl::StrCat(source, " message ", i));
    if (!message.ok()) return message.status();
    AppendDelimited((*message)->SerializeAsString(), &messages);
  }
  return messages;
}

absl::StatusOr<std::vector<std::string>> SplitDelimited(absl::string_view stream) {
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(stream.data()), static_cast<int>(stream.size()));
  std::vector<std::string> messages;
  while (in.CurrentPosition() < static_cast<int>(stream.size())) {
    uint32_t size = 0;
    std::string message;
    if (!in.ReadVarint32(&size) || !in.ReadString(&message, static_cast<int>(size))) {
      return absl::InvalidArgumentError(absl::StrCat("not a delimited stream of messages: message ", messages.size(),
                                                     " ends past the ", stream.size(), " bytes"));
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

absl::StatusOr<std::vector<std::string>> SerializedRequests(const pb::Descriptor* type, const RequestData& data,
                                                            bool stream) {
  if (data.json && data.file) return absl::InvalidArgumentError("--data and --data_file: give one, not both");
  if (data.format == RequestData::Format::kBinary && !data.file) {
    return absl::InvalidArgumentError("--data_format binary reads --data_file (--data is JSON); give --data_file");
  }
  // The factory makes the messages only to check and serialize them: none outlives it.
  pb::DynamicMessageFactory factory;
  const pb::Message& prototype = *factory.GetPrototype(type);
  if (data.json) {
    absl::StatusOr<std::string> request = SerializedJsonRequest(prototype, *data.json, "--data", stream);
    if (!request.ok()) return request.status();
    return std::vector<std::string>{*std::move(request)};
  }
  if (!data.file) {  // the empty message serializes to no bytes
    std::string one;
    if (stream) AppendDelimited("", &one);
    return std::vector<std::string>{one};
  }
  if (data.format == RequestData::Format::kBinary) {
    absl::StatusOr<std::vector<std::string>> request = FromBinaryFile(prototype, *data.file);
    if (!request.ok() || !stream) return request;
    std::string one;  // the file is one message: a stream of one
    AppendDelimited(request->front(), &one);
    return std::vector<std::string>{one};
  }
  absl::StatusOr<std::string> text = ReadFile(*data.file);
  if (!text.ok()) return text.status();
  return FromJsonFile(prototype, *data.file, *text, stream);
}

}  // namespace reco
