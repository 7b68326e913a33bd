// TEMPORARY: a minimal loader for alloc_ledger's --proto / --protoset, until
// core/proto_schema.h (branch `schema`) is on main. Swap it for LoadProtoFiles /
// LoadProtoset + FindMessage and delete this file: nothing else uses it.
//
// Example:
//   absl::StatusOr<std::unique_ptr<reco::TemporarySchema>> schema =
//       reco::LoadTemporarySchema({"feed.proto"}, {"dir"}, /*protoset=*/"");
//   const google::protobuf::Descriptor* type = (*schema)->FindMessage("feed.v1.FeedResponse");
//
// Errors are INVALID_ARGUMENT naming the flag (--proto, --protoset).
// Thread-safety: immutable once loaded; descriptors must not outlive it.
#ifndef ARENA_GRPC_TOOLS_TEMPORARY_SCHEMA_LOADER_H_
#define ARENA_GRPC_TOOLS_TEMPORARY_SCHEMA_LOADER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"

namespace reco {

class TemporarySchema {
 public:
  virtual ~TemporarySchema() = default;
  virtual const google::protobuf::DescriptorPool& pool() const = 0;
  // nullptr if absent.
  const google::protobuf::Descriptor* FindMessage(const std::string& full_name) const {
    return pool().FindMessageTypeByName(full_name);
  }
  // Message names of the loaded files (not their imports'), at most `limit`, for errors.
  std::vector<std::string> SomeMessageNames(size_t limit) const;

 protected:
  std::vector<std::string> files_;  // the files asked for, by name in the pool
};

// --proto files (protos non-empty) or a --protoset (protoset non-empty), not both.
absl::StatusOr<std::unique_ptr<TemporarySchema>> LoadTemporarySchema(const std::vector<std::string>& protos,
                                                                    const std::vector<std::string>& import_paths,
                                                                    const std::string& protoset);

}  // namespace reco

#endif  // ARENA_GRPC_TOOLS_TEMPORARY_SCHEMA_LOADER_H_
