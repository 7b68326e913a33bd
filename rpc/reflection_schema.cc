// See reflection_schema.h.
#include "rpc/reflection_schema.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/client_context.h>
#include <grpcpp/completion_queue.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/byte_buffer_bytes.h"

namespace reco {
namespace {

namespace pb = google::protobuf;

constexpr char kReflectionV1[] = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
constexpr char kReflectionV1Alpha[] = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";

// Field numbers of grpc/reflection/v1/reflection.proto (the same in v1alpha).
// ServerReflectionRequest:
constexpr int kFileByFilename = 3;       // string
constexpr int kFileContainingSymbol = 4; // string
constexpr int kListServices = 7;         // string (its content is not looked at)
// ServerReflectionResponse:
constexpr int kFileDescriptorResponse = 4;  // { repeated bytes file_descriptor_proto = 1; }
constexpr int kListServicesResponse = 6;    // { repeated ServiceResponse service = 1; } ServiceResponse { string name = 1; }
constexpr int kErrorResponse = 7;           // { int32 error_code = 1; string error_message = 2; }

// Past the deadline gRPC fails the call's operations itself; this is how much longer
// a wait lasts before the call is cancelled from here, in case it does not.
constexpr absl::Duration kCancelGrace = absl::Seconds(1);

std::string EncodeRequest(int field, const std::string& value) {
  pb::UnknownFieldSet request;
  request.AddLengthDelimited(field, value);
  std::string bytes;
  request.SerializeToString(&bytes);
  return bytes;
}

// The parts of a ServerReflectionResponse this client reads.
struct ReflectionAnswer {
  std::vector<std::string> files;     // serialized FileDescriptorProtos
  std::vector<std::string> services;  // full names, for list_services
  int error_code = 0;                 // a grpc::StatusCode; 0 when the server answered
  std::string error_message;
};

// The length-delimited fields numbered `number` among `fields` (a decoded message).
std::vector<std::string> Strings(const pb::UnknownFieldSet& fields, int number) {
  std::vector<std::string> found;
  for (int i = 0; i < fields.field_count(); ++i) {
    const pb::UnknownField& field = fields.field(i);
    if (field.number() == number && field.type() == pb::UnknownField::TYPE_LENGTH_DELIMITED) {
      found.push_back(field.length_delimited());
    }
  }
  return found;
}

bool DecodeAnswer(const std::string& bytes, ReflectionAnswer* answer) {
  pb::UnknownFieldSet response;
  if (!response.ParseFromString(bytes)) return false;
  for (const std::string& files : Strings(response, kFileDescriptorResponse)) {
    pb::UnknownFieldSet inner;
    if (!inner.ParseFromString(files)) return false;
    for (std::string& file : Strings(inner, 1)) answer->files.push_back(std::move(file));
  }
  for (const std::string& list : Strings(response, kListServicesResponse)) {
    pb::UnknownFieldSet inner;
    if (!inner.ParseFromString(list)) return false;
    for (const std::string& service : Strings(inner, 1)) {
      pb::UnknownFieldSet name;
      if (!name.ParseFromString(service)) return false;
      for (std::string& text : Strings(name, 1)) answer->services.push_back(std::move(text));
    }
  }
  for (const std::string& error : Strings(response, kErrorResponse)) {
    pb::UnknownFieldSet inner;
    if (!inner.ParseFromString(error)) return false;
    for (int i = 0; i < inner.field_count(); ++i) {
      if (inner.field(i).number() == 1 && inner.field(i).type() == pb::UnknownField::TYPE_VARINT) {
        answer->error_code = static_cast<int>(inner.field(i).varint());
      }
    }
    std::vector<std::string> messages = Strings(inner, 2);
    answer->error_message = messages.empty() ? "" : messages.front();
    if (answer->error_code == 0) answer->error_code = grpc::StatusCode::UNKNOWN;
  }
  return true;
}

// One ServerReflectionInfo stream, driven one operation at a time on a private
// completion queue, every wait bounded by the deadline.
class ReflectionStream {
 public:
  ReflectionStream(grpc::GenericStub& stub, const std::string& method, absl::Time deadline) : deadline_(deadline) {
    context_.set_deadline(absl::ToChronoTime(deadline));
    call_ = stub.PrepareCall(&context_, method, &cq_);
    call_->StartCall(this);
    started_ = Wait();
  }
  ~ReflectionStream() {
    cq_.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (cq_.Next(&tag, &ok)) {
    }
  }

  // Sends `request` and reads the answer; false when the stream has failed (Finish
  // then says why).
  bool Ask(const std::string& request, ReflectionAnswer* answer, bool* garbled) {
    if (!started_) return false;
    grpc::Slice slice(request);
    grpc::ByteBuffer out(&slice, 1);
    call_->Write(out, this);
    if (!Wait()) return false;
    grpc::ByteBuffer in;
    call_->Read(&in, this);
    if (!Wait()) return false;
    *garbled = !DecodeAnswer(ByteBufferBytes(in), answer);
    return true;
  }

  // Ends the stream (politely when it still stands) and returns its status.
  grpc::Status Finish() {
    if (started_ && !failed_) {
      call_->WritesDone(this);
      Wait();
    }
    grpc::Status status;
    call_->Finish(&status, this);
    Wait();
    return status;
  }

 private:
  // Waits for the one operation in flight. Past the deadline (and a grace) the call
  // is cancelled, which completes the operation at once.
  bool Wait() {
    void* tag = nullptr;
    bool ok = false;
    if (cq_.AsyncNext(&tag, &ok, absl::ToChronoTime(deadline_ + kCancelGrace)) ==
        grpc::CompletionQueue::TIMEOUT) {
      context_.TryCancel();
      cq_.Next(&tag, &ok);
      ok = false;
    }
    failed_ = failed_ || !ok;
    return ok;
  }

  absl::Time deadline_;
  grpc::ClientContext context_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  bool started_ = false;
  bool failed_ = false;
};

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

// An import of `files` that is not among them yet ("" when none is missing).
std::string MissingImport(const std::map<std::string, pb::FileDescriptorProto>& files, std::string* imported_by) {
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

// The FileDescriptorProtos of `service` and everything they import, through `method`
// (one reflection version). UNIMPLEMENTED when the server does not serve it.
absl::StatusOr<std::vector<pb::FileDescriptorProto>> FetchFiles(grpc::GenericStub& stub, const char* method,
                                                                const std::string& service, absl::Time deadline,
                                                                absl::Duration timeout) {
  ReflectionStream stream(stub, method, deadline);
  std::map<std::string, pb::FileDescriptorProto> files;
  std::string request = EncodeRequest(kFileContainingSymbol, service);
  std::string wanted;  // the file asked for by name ("" for the service's own)
  std::string imported_by;
  while (true) {
    ReflectionAnswer answer;
    bool garbled = false;
    if (!stream.Ask(request, &answer, &garbled)) return StreamError(stream.Finish(), timeout);
    if (garbled) return absl::InternalError("reflection: the server's answer is not a ServerReflectionResponse");
    if (answer.error_code == grpc::StatusCode::NOT_FOUND && wanted.empty()) {
      ReflectionAnswer list;
      std::string services = "it lists none";
      if (stream.Ask(EncodeRequest(kListServices, ""), &list, &garbled) && !garbled && !list.services.empty()) {
        services = absl::StrCat("services: ", absl::StrJoin(list.services, ", "));
      }
      stream.Finish();
      return absl::InvalidArgumentError(
          absl::StrCat("--call: the server has no service ", service, " (by reflection; ", services, ")"));
    }
    if (answer.error_code != 0) {
      stream.Finish();
      return absl::InvalidArgumentError(
          absl::StrCat("reflection: the server cannot send ", wanted.empty() ? service : "\"" + wanted + "\"",
                       wanted.empty() ? "" : absl::StrCat(" (imported by ", imported_by, ")"), ": ",
                       answer.error_message));
    }
    for (const std::string& bytes : answer.files) {
      pb::FileDescriptorProto file;
      if (!file.ParseFromString(bytes)) {
        stream.Finish();
        return absl::InvalidArgumentError("reflection: the server sent a file that is not a FileDescriptorProto");
      }
      std::string name = file.name();
      files.emplace(std::move(name), std::move(file));
    }
    if (!wanted.empty() && files.count(wanted) == 0) {
      stream.Finish();
      return absl::InvalidArgumentError(absl::StrCat("reflection: asked for \"", wanted, "\", the server sent other files"));
    }
    wanted = MissingImport(files, &imported_by);
    if (wanted.empty()) break;
    request = EncodeRequest(kFileByFilename, wanted);
  }
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
  absl::StatusOr<std::vector<pb::FileDescriptorProto>> files = FetchFiles(stub, kReflectionV1, name, deadline, timeout);
  if (absl::IsUnimplemented(files.status())) files = FetchFiles(stub, kReflectionV1Alpha, name, deadline, timeout);
  if (absl::IsUnimplemented(files.status())) {
    return absl::InvalidArgumentError(
        "the server does not serve gRPC reflection (grpc.reflection.v1 or v1alpha); give --proto or --protoset");
  }
  if (!files.ok()) return files.status();
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos(*std::move(files));
  if (!schema.ok()) return absl::InvalidArgumentError(absl::StrCat("reflection: ", schema.status().message()));
  if (schema->FindService(name) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("--call: ", name, " is not a service on the server (by reflection)"));
  }
  return schema;
}

}  // namespace reco
