// SchemaFromReflection: a service's schema asked of the server itself, through gRPC
// server reflection -- what reco_load uses when neither --proto nor --protoset is given.
//
// It asks for the file that defines the service, then for each import the server did
// not send with it, by file name, until the files build (schema/proto_schema.h). It
// speaks grpc.reflection.v1 and falls back to v1alpha on UNIMPLEMENTED (gRPC 1.51's
// C++ servers serve v1alpha only). The protocol's few messages are encoded and decoded
// by hand with protobuf's wire-format helpers: Debian installs neither reflection.proto
// nor its generated client.
//
// Example:
//   auto channel = grpc::CreateChannel("127.0.0.1:50051", grpc::InsecureChannelCredentials());
//   absl::StatusOr<reco::ProtoSchema> schema =
//       reco::SchemaFromReflection(*channel, "inbox.v1.Inbox", absl::Seconds(5));
//   if (schema.ok()) method = reco::FindMethod(*schema, "inbox.v1.Inbox/ListThreads");
//
// Errors:
//   INVALID_ARGUMENT   the server serves no reflection ("... give --proto or --protoset"),
//                      has no such service (naming --call, listing its services), or sent
//                      files that do not build;
//   UNAVAILABLE        the server cannot be reached;
//   DEADLINE_EXCEEDED  no complete answer within `timeout`. Every wait is bounded by it:
//                      a server that never answers cannot hang the caller.
//
// Thread-safety: any thread; each call has its own stream and completion queue. The
// channel must outlive the call (it is borrowed, not kept).
#ifndef ARENA_GRPC_RPC_REFLECTION_SCHEMA_H_
#define ARENA_GRPC_RPC_REFLECTION_SCHEMA_H_

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "schema/proto_schema.h"

namespace reco {

// `service` is a full service name ("inbox.v1.Inbox", as ParseCallFlag gives it).
absl::StatusOr<ProtoSchema> SchemaFromReflection(grpc::Channel& channel, absl::string_view service,
                                                 absl::Duration timeout);

}  // namespace reco

#endif  // ARENA_GRPC_RPC_REFLECTION_SCHEMA_H_
