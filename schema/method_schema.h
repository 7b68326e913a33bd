// MethodSchema: the gRPC method reco_load's `--call package.Service/Method` names, found
// in a ProtoSchema (schema/proto_schema.h): its wire path, its request and reply types,
// and which side streams.
//
// Example:
//   absl::StatusOr<reco::MethodSchema> method =
//       reco::FindMethod(schema, "inbox.v1.Inbox/ListThreads");
//   method->path;                  // "/inbox.v1.Inbox/ListThreads"
//   method->request->full_name();  // "inbox.v1.ListThreadsRequest"
//   reco::MethodKind(*method);     // "unary"
//
// Every error is INVALID_ARGUMENT naming --call and what the schema does have (its
// services, or the service's methods), so a typo is fixed from the message alone.
//
// Thread-safety: pure functions. A MethodSchema points into its ProtoSchema and must
// not outlive it.
#ifndef ARENA_GRPC_SCHEMA_METHOD_SCHEMA_H_
#define ARENA_GRPC_SCHEMA_METHOD_SCHEMA_H_

#include <string>
#include <utility>

#include <google/protobuf/descriptor.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "schema/proto_schema.h"

namespace reco {

struct MethodSchema {
  std::string service;  // full name: "inbox.v1.Inbox"
  std::string method;   // "ListThreads"
  std::string path;     // what goes on the wire: "/inbox.v1.Inbox/ListThreads"
  const google::protobuf::Descriptor* request = nullptr;
  const google::protobuf::Descriptor* reply = nullptr;
  bool client_streaming = false;
  bool server_streaming = false;
};

// Splits --call into {service full name, method}: "pkg.Service/Method", also
// "/pkg.Service/Method" (the wire path) and "pkg.Service.Method" (grpcurl's form).
absl::StatusOr<std::pair<std::string, std::string>> ParseCallFlag(absl::string_view call);

// The method `call` (as ParseCallFlag reads it) names in `schema`.
absl::StatusOr<MethodSchema> FindMethod(const ProtoSchema& schema, absl::string_view call);

// "unary", "server-streaming", "client-streaming" or "bidirectional-streaming" (gRPC's
// words).
absl::string_view MethodKind(bool client_streaming, bool server_streaming);

}  // namespace reco

#endif  // ARENA_GRPC_SCHEMA_METHOD_SCHEMA_H_
