// See json_message.h.
#include "schema/json_message.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace reco {
namespace {

namespace pb = google::protobuf;
using FieldType = pb::FieldDescriptor::CppType;

// google.protobuf.Timestamp, Duration, Any, Struct, wrappers...: their JSON is not an
// object of their fields, so only protobuf's parser judges them.
bool IsWellKnown(const pb::FileDescriptor& file) { return file.package() == "google.protobuf"; }

// A JSON value as the user wrote it, short enough for one line of error.
std::string Shown(const pb::Value& value) {
  std::string text;
  if (!pb::util::MessageToJsonString(value, &text).ok()) return "?";
  return text.size() > 40 ? absl::StrCat(text.substr(0, 37), "...") : text;
}

// The field a JSON key names: its .proto name or its JSON (lowerCamel) name.
const pb::FieldDescriptor* FieldNamed(const pb::Descriptor& type, const std::string& key) {
  if (const pb::FieldDescriptor* field = type.FindFieldByName(key)) return field;
  for (int i = 0; i < type.field_count(); ++i) {
    if (type.field(i)->json_name() == key) return type.field(i);
  }
  return nullptr;
}

std::string FieldNames(const pb::Descriptor& type) {
  std::vector<std::string> names;
  for (int i = 0; i < type.field_count(); ++i) names.push_back(type.field(i)->name());
  return names.empty() ? "it has no fields" : absl::StrCat("fields: ", absl::StrJoin(names, ", "));
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : absl::StrCat(path, ".", key);
}

absl::Status WantsError(const std::string& path, const pb::FieldDescriptor& field, absl::string_view wants,
                        const pb::Value& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("field \"", path, "\" wants ", wants, ", not ", Shown(value), " (", field.full_name(), ")"));
}

absl::Status CheckObject(const pb::Struct& object, const pb::Descriptor& type, const std::string& path);

// One value of `field` (an element, for a repeated field or a map): of the JSON kind
// protobuf's parser takes for the field's type.
absl::Status CheckOne(const pb::FieldDescriptor& field, const pb::Value& value, const std::string& path) {
  const pb::Value::KindCase kind = value.kind_case();
  switch (field.cpp_type()) {
    case FieldType::CPPTYPE_MESSAGE:
      if (IsWellKnown(*field.message_type()->file())) return absl::OkStatus();
      if (kind != pb::Value::kStructValue) {
        return WantsError(path, field, absl::StrCat("an object (", field.message_type()->full_name(), ")"), value);
      }
      return CheckObject(value.struct_value(), *field.message_type(), path);
    case FieldType::CPPTYPE_STRING:
      if (kind == pb::Value::kStringValue) return absl::OkStatus();
      return WantsError(path, field, field.type() == pb::FieldDescriptor::TYPE_BYTES ? "a base64 string" : "a string",
                        value);
    case FieldType::CPPTYPE_BOOL:
      if (kind == pb::Value::kBoolValue) return absl::OkStatus();
      return WantsError(path, field, "true or false", value);
    case FieldType::CPPTYPE_ENUM: {
      if (kind == pb::Value::kNumberValue || IsWellKnown(*field.enum_type()->file())) return absl::OkStatus();
      if (kind != pb::Value::kStringValue) return WantsError(path, field, "an enum value's name or number", value);
      const pb::EnumDescriptor& type = *field.enum_type();
      if (type.FindValueByName(value.string_value()) != nullptr) return absl::OkStatus();
      std::vector<std::string> names;
      for (int i = 0; i < type.value_count(); ++i) names.push_back(type.value(i)->name());
      return absl::InvalidArgumentError(absl::StrCat("field \"", path, "\": ", Shown(value), " is not a value of ",
                                                     type.full_name(), " (values: ", absl::StrJoin(names, ", "), ")"));
    }
    default:  // numbers: protobuf takes a JSON number or a string ("12", "NaN", a 64-bit integer)
      if (kind == pb::Value::kNumberValue || kind == pb::Value::kStringValue) return absl::OkStatus();
      return WantsError(path, field, "a number", value);
  }
}

// A Struct's entries, sorted by key (a map has no order, and the first error must be
// the same each run). Read through reflection, never the Map's inline code: under a
// TSan build protobuf's map.h lays its table out differently from Debian's
// uninstrumented libprotobuf, which filled it, and iterating it there misreads or
// crashes. Reflection runs inside the library.
std::vector<std::pair<std::string, const pb::Value*>> SortedEntries(const pb::Struct& object) {
  const pb::Reflection& reflection = *object.GetReflection();
  const pb::FieldDescriptor* fields = object.GetDescriptor()->FindFieldByName("fields");
  std::vector<std::pair<std::string, const pb::Value*>> entries;
  for (int i = 0; i < reflection.FieldSize(object, fields); ++i) {
    const pb::Message& entry = reflection.GetRepeatedMessage(object, fields, i);
    const pb::Descriptor& entry_type = *entry.GetDescriptor();
    const pb::Message& value = entry.GetReflection()->GetMessage(entry, entry_type.map_value());
    entries.emplace_back(entry.GetReflection()->GetString(entry, entry_type.map_key()),
                         static_cast<const pb::Value*>(&value));  // the map's values are Values
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return entries;
}

// A field's whole value: an array for a repeated field, an object for a map.
absl::Status CheckField(const pb::FieldDescriptor& field, const pb::Value& value, const std::string& path) {
  if (value.kind_case() == pb::Value::kNullValue) return absl::OkStatus();  // null means "not set"
  if (field.is_map()) {
    if (value.kind_case() != pb::Value::kStructValue) return WantsError(path, field, "an object (a map)", value);
    const pb::FieldDescriptor& values = *field.message_type()->map_value();
    for (const auto& [key, element] : SortedEntries(value.struct_value())) {
      absl::Status status = CheckOne(values, *element, absl::StrCat(path, "[\"", key, "\"]"));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (field.is_repeated()) {
    if (value.kind_case() != pb::Value::kListValue) return WantsError(path, field, "an array", value);
    const pb::ListValue& list = value.list_value();
    for (int i = 0; i < list.values_size(); ++i) {
      absl::Status status = CheckOne(field, list.values(i), absl::StrCat(path, "[", i, "]"));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  return CheckOne(field, value, path);
}

absl::Status CheckObject(const pb::Struct& object, const pb::Descriptor& type, const std::string& path) {
  for (const auto& [key, value] : SortedEntries(object)) {
    if (key.rfind("[", 0) == 0) continue;  // an extension, "[pkg.ext]": protobuf's parser judges it
    const pb::FieldDescriptor* field = FieldNamed(type, key);
    if (field == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("field \"", Join(path, key), "\" is not a field of ",
                                                     type.full_name(), " (", FieldNames(type), ")"));
    }
    absl::Status status = CheckField(*field, *value, Join(path, key));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// protobuf's own message, "(threads[0].counters.unread): invalid value ...", with the
// path written like ours.
std::string ProtobufError(absl::string_view message, const pb::Descriptor& type) {
  if (!message.empty() && message.front() == '(') {
    size_t close = message.find(')');
    if (close != absl::string_view::npos) {
      absl::string_view rest = absl::StripLeadingAsciiWhitespace(message.substr(close + 1));
      if (!rest.empty() && rest.front() == ':') rest = absl::StripLeadingAsciiWhitespace(rest.substr(1));
      return absl::StrCat("field \"", message.substr(1, close - 1), "\" of ", type.full_name(), ": ", rest);
    }
  }
  return absl::StrCat(type.full_name(), ": ", message);
}

// Calls on(i, c, depth) for each '{', '[', '}', ']' and ',' of `json` outside strings
// (escapes honoured), `depth` the nesting after an opening bracket and before a
// closing one (1 inside the outermost value).
template <typename On>
void WalkJsonStructure(absl::string_view json, On on) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      on(i, c, ++depth);
    } else if (c == '}' || c == ']') {
      on(i, c, depth--);
    } else if (c == ',') {
      on(i, c, depth);
    }
  }
}

// The deepest nesting of objects and arrays in `json`, in one pass. protobuf 3.21's
// JSON parser stops objects nested past 100 levels, but not arrays: 50,000 nested
// ones took it over a minute (quadratic).
int JsonDepth(absl::string_view json) {
  int deepest = 0;
  WalkJsonStructure(json, [&](size_t, char, int depth) { deepest = std::max(deepest, depth); });
  return deepest;
}

}  // namespace

absl::StatusOr<std::optional<std::vector<absl::string_view>>> JsonArrayElements(absl::string_view json,
                                                                                absl::string_view source) {
  json = absl::StripAsciiWhitespace(json);
  if (json.empty() || json.front() != '[') return std::optional<std::vector<absl::string_view>>();
  if (JsonDepth(json) > kMaxJsonDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": JSON nested deeper than ", kMaxJsonDepth, " levels (objects and arrays)"));
  }
  pb::ListValue array;  // protobuf's own JSON grammar decides what is valid
  pb::util::Status parsed = pb::util::JsonStringToMessage(pb::StringPiece(json.data(), json.size()), &array);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": not a valid JSON array: ", parsed.message().ToString()));
  }
  // Valid: split it at its own commas and at its closing ']'.
  std::vector<absl::string_view> elements;
  size_t start = 1;
  WalkJsonStructure(json, [&](size_t i, char c, int depth) {
    if (depth != 1 || (c != ',' && c != ']')) return;
    absl::string_view element = absl::StripAsciiWhitespace(json.substr(start, i - start));
    if (!element.empty()) elements.push_back(element);  // "[]" has none
    start = i + 1;
  });
  return std::optional<std::vector<absl::string_view>>(std::move(elements));
}

absl::StatusOr<std::unique_ptr<pb::Message>> ParseJsonMessage(const pb::Message& prototype, absl::string_view json,
                                                              absl::string_view source) {
  const pb::Descriptor& type = *prototype.GetDescriptor();
  if (JsonDepth(json) > kMaxJsonDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": JSON nested deeper than ", kMaxJsonDepth, " levels (objects and arrays)"));
  }
  // The walk reads the JSON as a google.protobuf.Struct: protobuf's own JSON grammar,
  // so what passes here is what its parser below accepts.
  if (!IsWellKnown(*type.file())) {
    pb::Struct object;
    pb::util::Status parsed = pb::util::JsonStringToMessage(pb::StringPiece(json.data(), json.size()), &object);
    if (!parsed.ok()) {
      absl::string_view text = absl::StripLeadingAsciiWhitespace(json);
      if (!text.empty() && text.front() != '{') {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": want one JSON object ({...}) of ", type.full_name(), ", not ", text.substr(0, 40)));
      }
      return absl::InvalidArgumentError(absl::StrCat(source, ": not valid JSON: ", parsed.message().ToString()));
    }
    absl::Status fits = CheckObject(object, type, "");
    if (!fits.ok()) return absl::InvalidArgumentError(absl::StrCat(source, ": ", fits.message()));
  }
  std::unique_ptr<pb::Message> message(prototype.New());
  pb::util::Status parsed = pb::util::JsonStringToMessage(pb::StringPiece(json.data(), json.size()), message.get());
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", ProtobufError(parsed.message().ToString(), type)));
  }
  return message;
}

}  // namespace reco
