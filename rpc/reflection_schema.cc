// See reflection_schema.h.
#include "rpc/reflection_schema.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/generic/generic_stub.h>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rpc/reflection_stream.h"

namespace reco {
namespace {

namespace pb = google::protobuf;
using FileMap = std::map<std::string, pb::FileDescriptorProto>;

// A failed stream's status in this module's terms.
absl::Status StreamError(const grpc::Status& status, absl::Duration timeout) {
  if (status.ok()) return absl::InternalError("reflection: the server ended the stream without answering");
  switch (status.error_code()) {
    case grpc::StatusCode::UNIMPLEMENTED:
      return absl::UnimplementedError(status.error_message());
    case grpc::StatusCode::UNAVAILABLE:
      return absl::UnavailableError(absl::StrCat("reflection: cannot reach the server: ", status.error_message()));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return absl::DeadlineExceededError(
          absl::StrCat("reflection: the server did not answer within ", absl::FormatDuration(timeout)));
    default:
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          absl::StrCat("reflection: ", status.error_message()));
  }
}

// "--call: the server has no service X", with the services it does list -- or, when
// it lists X but cannot describe it, that: gRPC 1.51's built-in health service
// (grpc.health.v1.Health) is served without a descriptor reflection could send.
absl::Status NoSuchService(ReflectionStream& stream, const std::string& service) {
  ReflectionAnswer list;
  std::string services = "it lists none";
  if (stream.Ask(ListServices(), &list) && !list.garbled && !list.services.empty()) {
    if (absl::c_linear_search(list.services, service)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--call: the server lists ", service,
          " but its reflection cannot describe it (no descriptor for it in the server); give the service's "
          ".proto with --proto or --protoset"));
    }
    services = absl::StrCat("services: ", absl::StrJoin(list.services, ", "));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--call: the server has no service ", service, " (by reflection; ", services, ")"));
}

absl::Status AddFiles(const ReflectionAnswer& answer, FileMap& files) {
  for (const std::string& bytes : answer.files) {
    pb::FileDescriptorProto file;
    if (!file.ParseFromString(bytes)) {
      return absl::InvalidArgumentError("reflection: the server sent a file that is not a FileDescriptorProto");
    }
    std::string name = file.name();
    files.emplace(std::move(name), std::move(file));
  }
  return absl::OkStatus();
}

// An import of `files` that is not among them yet ("" when none is missing).
std::string MissingImport(const FileMap& files, std::string* imported_by) {
  for (const auto& [name, file] : files) {
    for (const std::string& dependency : file.dependency()) {
      if (files.count(dependency) == 0) {
        *imported_by = name;
        return dependency;
      }
    }
  }
  return "";
}

// Asks for each import the server has not sent yet, by file name, until none is
// missing. (gRPC's C++ server sends a file's imports with it; others may not.)
absl::Status FetchImports(ReflectionStream& stream, FileMap& files, absl::Duration timeout) {
  std::string imported_by;
  for (std::string wanted = MissingImport(files, &imported_by); !wanted.empty();
       wanted = MissingImport(files, &imported_by)) {
    ReflectionAnswer answer;
    if (!stream.Ask(FileByFilename(wanted), &answer)) return StreamError(stream.Finish(), timeout);
    if (answer.garbled) return absl::InternalError("reflection: the server's answer is not a ServerReflectionResponse");
    if (answer.error_code != 0) {
      return absl::InvalidArgumentError(absl::StrCat("reflection: the server cannot send \"", wanted,
                                                     "\" (imported by ", imported_by, "): ", answer.error_message));
    }
    absl::Status added = AddFiles(answer, files);
    if (!added.ok()) return added;
    if (files.count(wanted) == 0) {  // else the same question forever
      return absl::InvalidArgumentError(
          absl::StrCat("reflection: asked for \"", wanted, "\", the server sent other files"));
    }
  }
  return absl::OkStatus();
}

// The FileDescriptorProtos of `service` and everything they import, through `method`
// (one reflection version). UNIMPLEMENTED when the server does not serve that version.
absl::StatusOr<std::vector<pb::FileDescriptorProto>> FetchFiles(grpc::GenericStub& stub, const char* method,
                                                                const std::string& service, absl::Time deadline,
                                                                absl::Duration timeout) {
  ReflectionStream stream(stub, method, deadline);
  ReflectionAnswer answer;
  if (!stream.Ask(FileContainingSymbol(service), &answer)) return StreamError(stream.Finish(), timeout);
  if (answer.garbled) return absl::InternalError("reflection: the server's answer is not a ServerReflectionResponse");
  if (answer.error_code == grpc::StatusCode::NOT_FOUND) return NoSuchService(stream, service);
  if (answer.error_code != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reflection: the server cannot send ", service, ": ", answer.error_message));
  }
  FileMap files;
  absl::Status fetched = AddFiles(answer, files);
  if (fetched.ok()) fetched = FetchImports(stream, files, timeout);
  if (!fetched.ok()) return fetched;
  stream.Finish();
  std::vector<pb::FileDescriptorProto> out;
  for (auto& [name, file] : files) out.push_back(std::move(file));
  return out;
}

}  // namespace

absl::StatusOr<ProtoSchema> SchemaFromReflection(grpc::Channel& channel, absl::string_view service,
                                                 absl::Duration timeout) {
  // GenericStub keeps a shared_ptr to its channel; this one only borrows the caller's
  // (the aliasing constructor with no owner), which outlives the call.
  grpc::GenericStub stub(std::shared_ptr<grpc::Channel>(std::shared_ptr<grpc::Channel>(), &channel));
  const absl::Time deadline = absl::Now() + timeout;
  const std::string name(service);
  absl::StatusOr<std::vector<pb::FileDescriptorProto>> files =
      FetchFiles(stub, kReflectionV1Method, name, deadline, timeout);
  if (absl::IsUnimplemented(files.status()))
    files = FetchFiles(stub, kReflectionV1AlphaMethod, name, deadline, timeout);
  if (absl::IsUnimplemented(files.status())) {
    return absl::InvalidArgumentError(
        "the server does not serve gRPC reflection (grpc.reflection.v1 or v1alpha); give --proto or --protoset");
  }
  if (!files.ok()) return files.status();
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos(*std::move(files));
  if (!schema.ok()) return absl::InvalidArgumentError(absl::StrCat("reflection: ", schema.status().message()));
  if (schema->FindService(name) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--call: ", name, " is not a service on the server (by reflection)"));
  }
  return schema;
}

}  // namespace reco
