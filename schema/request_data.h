// RequestData and SerializedRequests: the request bytes reco_load sends to a method it
// knows only from a schema (schema/method_schema.h), read from its flags:
//   --data JSON                   one request, JSON;
//   --data_file FILE              JSON: one object (it may span lines), or JSON Lines
//                                 (one object per line, blank lines skipped): several
//                                 requests, which the caller cycles through;
//   --data_file FILE --data_format binary
//                                 the file is one serialized request, sent as it is;
//   neither                       one empty request (every field at its default).
//
// A client-streaming (or bidirectional) method's request is a stream of messages:
// each JSON request above may then be an array of objects, the call's messages in
// order (ghz's form; an object alone is a stream of one), and each request comes
// serialized in protobuf's delimited form (every message after its length as a
// varint), which SplitDelimited takes apart.
//
// Example:
//   reco::RequestData data;
//   data.json = R"({"account": "ada", "threads": 20})";
//   absl::StatusOr<std::vector<std::string>> requests =
//       reco::SerializedRequests(method.request, data);   // one request's bytes
//
// Every error is INVALID_ARGUMENT naming the flag, the line for JSON Lines, and the
// field for JSON that does not fit the type (schema/json_message.h).
//
// Thread-safety: pure functions (SerializedRequests reads the file).
#ifndef ARENA_GRPC_SCHEMA_REQUEST_DATA_H_
#define ARENA_GRPC_SCHEMA_REQUEST_DATA_H_

#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace reco {

struct RequestData {
  enum class Format { kJson, kBinary };  // how --data_file is read (--data_format)

  std::optional<std::string> json;  // --data
  std::optional<std::string> file;  // --data_file
  Format format = Format::kJson;    // --data_format
};

// --data_format's value: "json" or "binary".
absl::StatusOr<RequestData::Format> ParseDataFormat(absl::string_view name);

// The requests `data` describes, each serialized as a `type` (with `stream`, each a
// delimited stream of them); never empty.
absl::StatusOr<std::vector<std::string>> SerializedRequests(const google::protobuf::Descriptor* type,
                                                            const RequestData& data, bool stream = false);

// One JSON request, as SerializedRequests serializes it; `source` starts every error
// ("--data", "--data_file x.jsonl line 3").
absl::StatusOr<std::string> SerializedJsonRequest(const google::protobuf::Message& prototype, absl::string_view json,
                                                  absl::string_view source, bool stream);

// The messages of a delimited stream, in order; INVALID_ARGUMENT when the bytes are
// not one (a length past the end).
absl::StatusOr<std::vector<std::string>> SplitDelimited(absl::string_view stream);

}  // namespace reco

#endif  // ARENA_GRPC_SCHEMA_REQUEST_DATA_H_
