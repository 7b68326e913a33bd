// See reflection_stream.h.
#include "rpc/reflection_stream.h"

#include <utility>

#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/support/byte_buffer.h>

#include "core/byte_buffer_bytes.h"

namespace reco {
namespace {

namespace pb = google::protobuf;

// Field numbers of grpc/reflection/v1/reflection.proto (the same in v1alpha).
// ServerReflectionRequest:
constexpr int kFileByFilename = 3;        // string
constexpr int kFileContainingSymbol = 4;  // string
constexpr int kListServices = 7;          // string (its content is not looked at)
// ServerReflectionResponse:
constexpr int kFileDescriptorResponse = 4;  // { repeated bytes file_descriptor_proto = 1; }
constexpr int kListServicesResponse =
    6;                             // { repeated ServiceResponse service = 1; } ServiceResponse { string name = 1; }
constexpr int kErrorResponse = 7;  // { int32 error_code = 1; string error_message = 2; }

// Past the deadline gRPC fails the call's operations itself; this is how much longer
// a wait lasts before the call is cancelled from here, in case it does not.
constexpr absl::Duration kCancelGrace = absl::Seconds(1);

std::string Request(int field, const std::string& value) {
  pb::UnknownFieldSet request;
  request.AddLengthDelimited(field, value);
  std::string bytes;
  request.SerializeToString(&bytes);
  return bytes;
}

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

// The fields numbered `number` of the sub-messages numbered `outer`; false if one of
// those is not a message.
bool InnerStrings(const pb::UnknownFieldSet& fields, int outer, int number, std::vector<std::string>* out) {
  for (const std::string& bytes : Strings(fields, outer)) {
    pb::UnknownFieldSet inner;
    if (!inner.ParseFromString(bytes)) return false;
    for (std::string& text : Strings(inner, number)) out->push_back(std::move(text));
  }
  return true;
}

bool DecodeError(const pb::UnknownFieldSet& response, ReflectionAnswer* answer) {
  for (const std::string& bytes : Strings(response, kErrorResponse)) {
    pb::UnknownFieldSet error;
    if (!error.ParseFromString(bytes)) return false;
    answer->error_code = grpc::StatusCode::UNKNOWN;  // unless it says
    for (int i = 0; i < error.field_count(); ++i) {
      if (error.field(i).number() == 1 && error.field(i).type() == pb::UnknownField::TYPE_VARINT) {
        answer->error_code = static_cast<int>(error.field(i).varint());
      }
    }
    std::vector<std::string> messages = Strings(error, 2);
    answer->error_message = messages.empty() ? "" : messages.front();
  }
  return true;
}

ReflectionAnswer Decode(const std::string& bytes) {
  ReflectionAnswer answer;
  pb::UnknownFieldSet response;
  std::vector<std::string> services;  // ServiceResponse messages, each holding a name
  answer.garbled = !response.ParseFromString(bytes) ||
                   !InnerStrings(response, kFileDescriptorResponse, 1, &answer.files) ||
                   !InnerStrings(response, kListServicesResponse, 1, &services) || !DecodeError(response, &answer);
  for (const std::string& service : services) {
    pb::UnknownFieldSet name;
    answer.garbled = answer.garbled || !name.ParseFromString(service);
    for (std::string& text : Strings(name, 1)) answer.services.push_back(std::move(text));
  }
  return answer;
}

}  // namespace

std::string FileContainingSymbol(const std::string& symbol) { return Request(kFileContainingSymbol, symbol); }
std::string FileByFilename(const std::string& file_name) { return Request(kFileByFilename, file_name); }
std::string ListServices() { return Request(kListServices, ""); }

ReflectionStream::ReflectionStream(grpc::GenericStub& stub, const std::string& method, absl::Time deadline)
    : deadline_(deadline) {
  context_.set_deadline(absl::ToChronoTime(deadline));
  call_ = stub.PrepareCall(&context_, method, &cq_);
  call_->StartCall(this);
  Wait();
}

ReflectionStream::~ReflectionStream() {
  if (!finished_) {
    context_.TryCancel();
    Finish();
  }
  cq_.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq_.Next(&tag, &ok)) {
  }
}

bool ReflectionStream::Ask(const std::string& request, ReflectionAnswer* answer) {
  if (failed_) return false;
  grpc::Slice slice(request);
  grpc::ByteBuffer out(&slice, 1);
  call_->Write(out, this);
  if (!Wait()) return false;
  grpc::ByteBuffer in;
  call_->Read(&in, this);
  if (!Wait()) return false;
  *answer = Decode(ByteBufferBytes(in));
  return true;
}

grpc::Status ReflectionStream::Finish() {
  if (!failed_) {
    call_->WritesDone(this);
    Wait();
  }
  grpc::Status status;
  call_->Finish(&status, this);
  Wait();
  finished_ = true;
  return status;
}

// Past the deadline (and the grace) the call is cancelled, which completes the
// operation at once.
bool ReflectionStream::Wait() {
  void* tag = nullptr;
  bool ok = false;
  if (cq_.AsyncNext(&tag, &ok, absl::ToChronoTime(deadline_ + kCancelGrace)) == grpc::CompletionQueue::TIMEOUT) {
    context_.TryCancel();
    cq_.Next(&tag, &ok);
    ok = false;
  }
  failed_ = failed_ || !ok;
  return ok;
}

}  // namespace reco
