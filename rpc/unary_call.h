// BlockingUnaryCall: one unary call of any method, as raw bytes, waited for on the
// calling thread -- the control calls around the load (reco_load's probe, the health
// probe, the tests' byte-for-byte checks), never the load itself.
//
// It goes through grpc::GenericStub, so neither side needs generated code for the
// method (the health-check messages are not installed by Debian's gRPC), and the
// reply is the message exactly as it came over the wire.
//
// Example:
//   grpc::GenericStub stub(channel);
//   reco::UnaryReply reply = reco::BlockingUnaryCall(stub, "/reco.v1.Recommender/Recommend",
//                                                    request.SerializeAsString(),
//                                                    absl::Now() + absl::Seconds(5));
//   if (reply.status.ok()) Use(reply.Bytes());
//
// Thread-safety: any thread; each call has its own completion queue.
#ifndef ARENA_GRPC_RPC_UNARY_CALL_H_
#define ARENA_GRPC_RPC_UNARY_CALL_H_

#include <string>
#include <utility>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>

#include "absl/time/time.h"

namespace reco {

struct UnaryReply {
  grpc::Status status;
  grpc::ByteBuffer message;  // the reply message as received (empty unless OK)
  // The message's bytes, copied into one string.
  std::string Bytes() const;
};

// Key-value pairs sent as the call's metadata.
using RequestMetadata = std::vector<std::pair<std::string, std::string>>;

// Sends `request` to `method` ("/package.Service/Method") with `metadata` and waits
// for the answer or `deadline`.
UnaryReply BlockingUnaryCall(grpc::GenericStub& stub, const std::string& method, const grpc::ByteBuffer& request,
                             absl::Time deadline, const RequestMetadata& metadata = {});
UnaryReply BlockingUnaryCall(grpc::GenericStub& stub, const std::string& method, const std::string& request,
                             absl::Time deadline, const RequestMetadata& metadata = {});

// A streaming call of any kind: sends `requests` (a unary-request method's one, or a
// client stream's messages; the last half-closes) while it reads every message until
// the server finishes. `message` is the first one, `messages` how many came.
struct StreamReply {
  grpc::Status status;
  grpc::ByteBuffer message;
  int64_t messages = 0;
};
StreamReply BlockingStreamingCall(grpc::GenericStub& stub, const std::string& method,
                                  const std::vector<grpc::ByteBuffer>& requests, absl::Time deadline,
                                  const RequestMetadata& metadata = {});

}  // namespace reco

#endif  // ARENA_GRPC_RPC_UNARY_CALL_H_
