// ReflectionStream: one gRPC server-reflection call (ServerReflectionInfo, a
// bidirectional stream), asked one question at a time and waited for on the calling
// thread. rpc/reflection_schema.h uses it to fetch a service's .proto files.
//
// The protocol's messages are encoded and decoded by hand with protobuf's wire-format
// helpers (google::protobuf::UnknownFieldSet), for the few fields read here: Debian
// installs neither grpc/reflection/v1/reflection.proto nor its generated client, and
// the project does not vendor it.
//
// Example:
//   reco::ReflectionStream stream(stub, reco::kReflectionV1Method, absl::Now() + absl::Seconds(5));
//   reco::ReflectionAnswer answer;
//   if (!stream.Ask(reco::FileContainingSymbol("inbox.v1.Inbox"), &answer)) {
//     grpc::Status why = stream.Finish();    // e.g. UNIMPLEMENTED: no v1 reflection here
//   }
//   answer.files;                            // serialized FileDescriptorProtos
//
// Every wait ends by the deadline (plus a grace of a second, after which the call is
// cancelled from here): a server that never answers cannot hang the caller.
//
// Thread-safety: one thread at a time. The stub's channel must outlive the stream.
#ifndef ARENA_GRPC_RPC_REFLECTION_STREAM_H_
#define ARENA_GRPC_RPC_REFLECTION_STREAM_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>
#include <grpcpp/completion_queue.h>
#include <grpcpp/generic/generic_stub.h>

#include "absl/time/time.h"

namespace reco {

inline constexpr char kReflectionV1Method[] = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
inline constexpr char kReflectionV1AlphaMethod[] = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";

// ServerReflectionRequests (serialized): the file that defines a symbol, a file by
// name, the list of services.
std::string FileContainingSymbol(const std::string& symbol);
std::string FileByFilename(const std::string& file_name);
std::string ListServices();

// What this client reads of a ServerReflectionResponse.
struct ReflectionAnswer {
  std::vector<std::string> files;     // serialized FileDescriptorProtos
  std::vector<std::string> services;  // full names (the answer to ListServices)
  int error_code = 0;                 // a grpc::StatusCode; 0 unless the server sent an error
  std::string error_message;
  bool garbled = false;  // the bytes were not a ServerReflectionResponse
};

class ReflectionStream {
 public:
  // Starts the call to `method` (kReflectionV1Method or kReflectionV1AlphaMethod).
  ReflectionStream(grpc::GenericStub& stub, const std::string& method, absl::Time deadline);
  // Ends the call if Finish() was not called (cancelling it) and waits for that.
  ~ReflectionStream();
  ReflectionStream(const ReflectionStream&) = delete;
  ReflectionStream& operator=(const ReflectionStream&) = delete;

  // Sends `request` and reads the answer. False when the call has failed or ended:
  // Finish() then says why.
  bool Ask(const std::string& request, ReflectionAnswer* answer);
  // Ends the call (half-closing it first if it still stands) and returns its status.
  grpc::Status Finish();

 private:
  bool Wait();  // for the one operation in flight

  absl::Time deadline_;
  grpc::ClientContext context_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  bool failed_ = false;    // an operation failed: the call is over
  bool finished_ = false;  // Finish() has run
};

}  // namespace reco

#endif  // ARENA_GRPC_RPC_REFLECTION_STREAM_H_
