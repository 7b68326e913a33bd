// ParseJsonMessage: JSON text -> a protobuf message of a type known only at run time
// (a DynamicMessage from a ProtoSchema, or a generated one), with errors that name the
// field. reco_load reads its requests this way (schema/request_data.h) and the ledger its
// sample reply.
//
// protobuf's JSON parser (util/json_util.h) says "acount: Cannot find field." for a
// misspelt field and "(threads): invalid value "abc" for type TYPE_UINT32" for a wrong
// value, and does not list what the type has. Before it runs, the JSON is walked
// against the descriptor so the common mistakes read like this instead (at any depth,
// the path written out):
//   --data: field "acount" is not a field of inbox.v1.ListThreadsRequest
//           (fields: account, threads, long_text, page_token)
//   --data: field "threads[0].subject" wants a string, not 7 (inbox.v1.MailThread.subject)
//   --data: field "threads[0].participants[0].role": "ROLE_BOSS" is not a value of
//           inbox.v1.Participant.Role (values: ROLE_UNSPECIFIED, ROLE_FROM, ROLE_TO, ROLE_CC)
// What the walk leaves to protobuf (a number out of range, a bad timestamp) comes back
// in protobuf's words, with the field's path and the type in front:
//   --data: field "threads" of inbox.v1.ListThreadsRequest: invalid value -1 for type TYPE_UINT32
//
// Example:
//   absl::StatusOr<std::unique_ptr<google::protobuf::Message>> request =
//       reco::ParseJsonMessage(schema.Prototype(type), R"({"account": "ada"})", "--data");
//   if (!request.ok()) return Fail(request.status());   // INVALID_ARGUMENT
//
// Field names are accepted as in the .proto (page_token) or in JSON form (pageToken).
//
// Thread-safety: a pure function. The message is made by prototype.New(): a dynamic
// message must not outlive the factory (and schema) its prototype came from.
#ifndef ARENA_GRPC_SCHEMA_JSON_MESSAGE_H_
#define ARENA_GRPC_SCHEMA_JSON_MESSAGE_H_

#include <memory>
#include <optional>
#include <vector>

#include <google/protobuf/message.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace reco {

// The deepest nesting of objects and arrays ParseJsonMessage takes (protobuf's own
// limit for objects; it has none for arrays).
inline constexpr int kMaxJsonDepth = 100;

// Parses `json` (one JSON object) into a new message of prototype's type. `source`
// starts every error message: the flag, and where in it ("--data_file x.jsonl line 3").
absl::StatusOr<std::unique_ptr<google::protobuf::Message>> ParseJsonMessage(const google::protobuf::Message& prototype,
                                                                            absl::string_view json,
                                                                            absl::string_view source);

// The elements of `json` when it is one JSON array ("[{...}, {...}]"), each as its
// text, in order; nullopt when it is not an array (an object, say). INVALID_ARGUMENT,
// starting with `source`, for an array that is not valid JSON or nests too deep.
absl::StatusOr<std::optional<std::vector<absl::string_view>>> JsonArrayElements(absl::string_view json,
                                                                                absl::string_view source);

}  // namespace reco

#endif  // ARENA_GRPC_SCHEMA_JSON_MESSAGE_H_
