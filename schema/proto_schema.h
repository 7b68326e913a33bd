// ProtoSchema: the message and service types of a user's .proto files, found at run
// time, so reco_load and the ledger can handle a service they were not compiled with.
// Three sources, one result:
//   --proto FILE        LoadProtoFiles parses .proto text with protobuf's compiler
//                       (google/protobuf/compiler/importer.h), like protoc does;
//   --protoset FILE     LoadProtoset reads a FileDescriptorSet written by
//                       `protoc --include_imports --descriptor_set_out=FILE`;
//   server reflection   rpc/reflection_schema.h fetches FileDescriptorProtos and hands
//                       them to FromFileDescriptorProtos.
// Every source ends as FileDescriptorProtos built into one DescriptorPool the schema
// owns, so nothing else (an importer, a source tree) has to stay alive with it.
//
// Example:
//   absl::StatusOr<reco::ProtoSchema> schema =
//       reco::LoadProtoFiles({"examples/inbox/inbox.proto"}, /*import_paths=*/{});
//   if (!schema.ok()) return Fail(schema.status());     // INVALID_ARGUMENT naming --proto
//   const google::protobuf::Descriptor* request =
//       schema->FindMessage("inbox.v1.ListThreadsRequest");   // nullptr if absent
//   schema->Services();                                 // {"inbox.v1.Inbox"}
//   std::unique_ptr<google::protobuf::Message> message(schema->Prototype(request).New());
//
// Errors are INVALID_ARGUMENT with a message naming the flag (--proto, --import_path,
// --protoset) and, for .proto text, file:line:column.
//
// Thread-safety: a loaded schema is immutable; its finders and the descriptors they
// return may be used from any thread. Descriptors (and messages made from them) must
// not outlive the schema. Movable, not copyable.
#ifndef ARENA_GRPC_SCHEMA_PROTO_SCHEMA_H_
#define ARENA_GRPC_SCHEMA_PROTO_SCHEMA_H_

#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace reco {

class ProtoSchema {
 public:
  ProtoSchema(ProtoSchema&&) = default;
  ProtoSchema& operator=(ProtoSchema&& other) noexcept;  // drops the old prototypes before the old pool

  // A message or service by full name ("inbox.v1.ListThreadsRequest"); nullptr if the
  // schema has none of that name.
  const google::protobuf::Descriptor* FindMessage(absl::string_view full_name) const;
  const google::protobuf::ServiceDescriptor* FindService(absl::string_view full_name) const;
  // Every service's full name, in file order (for "did you mean" lists in errors).
  std::vector<std::string> Services() const;
  // The top-level messages' full names, in file order, the files' own before their
  // imports' (the same use).
  std::vector<std::string> Messages() const;
  const google::protobuf::DescriptorPool& pool() const { return *pool_; }
  // The default instance of `type` (one of this schema's), to make messages from:
  // Prototype(type).New(arena). Thread-safe; the messages must not outlive the schema.
  const google::protobuf::Message& Prototype(const google::protobuf::Descriptor* type) const;

 private:
  friend absl::StatusOr<ProtoSchema> FromFileDescriptorProtos(std::vector<google::protobuf::FileDescriptorProto>);
  ProtoSchema();

  std::unique_ptr<google::protobuf::DescriptorPool> pool_;  // unique_ptr: descriptors keep their address on a move
  std::vector<std::string> files_;                          // built files, dependencies first
  // After pool_: destroyed first, as its prototypes point into the pool's descriptors.
  std::unique_ptr<google::protobuf::DynamicMessageFactory> factory_;
};

// Builds `files` (each file's imports among them) into a schema. INVALID_ARGUMENT when
// an import is missing from `files` or a file does not build; the message names the
// file but no flag (callers prefix their own: "--protoset x.pb: ...").
absl::StatusOr<ProtoSchema> FromFileDescriptorProtos(std::vector<google::protobuf::FileDescriptorProto> files);

// Parses the .proto `files` (paths on disk, or relative names found under an import
// path, as protoc and grpcurl take them) and what they import. Imports are looked up
// in `import_paths` (in order), then in each file's own directory, then in the
// directory of the installed well-known types (google/protobuf/*.proto), as protoc does.
absl::StatusOr<ProtoSchema> LoadProtoFiles(const std::vector<std::string>& files,
                                           const std::vector<std::string>& import_paths);

// Reads a FileDescriptorSet (binary) from `path`.
absl::StatusOr<ProtoSchema> LoadProtoset(const std::string& path);

}  // namespace reco

#endif  // ARENA_GRPC_SCHEMA_PROTO_SCHEMA_H_
