// CeilingService: reco.v1.Recommender/Recommend answered with ONE reply, serialized
// once at start-up -- the fifth, server-level mode `ceiling`, which measures what the
// transport alone can carry on this machine. It is NOT a pattern to copy: it ignores
// the request's content (every request gets the reply to the fixed request given at
// construction) and builds nothing per RPC.
//
// How the reply is sent without a copy: the generated WithRawCallbackMethod_Recommend
// hands the handler a grpc::ByteBuffer to fill instead of a message. The service owns
// the serialized bytes, wraps them once in a grpc::Slice of kind STATIC_SLICE (gRPC
// neither copies nor frees static memory; the service outlives the server) and keeps
// a ByteBuffer over that slice. Each reply is a copy of that ByteBuffer: a new
// grpc_byte_buffer whose slice is a reference to the same bytes (a static slice's
// refcount is a no-op). So per RPC there is no build and no serialization; gRPC frames
// the same bytes every time.
//
// Measurement (RpcMeter): the handler counts each RPC (rpcs), and when measuring
// records the copy of the ByteBuffer as the build phase (its allocations are gRPC's
// byte-buffer header). Serialize and release take no samples (n/a): there is nothing
// to serialize or release.
//
// Example:
//   reco::CeilingService ceiling(*catalogue, reco::DefaultCeilingRequest(), &meter);
//   builder.RegisterService(&ceiling);   // replies: BuildResponse(catalogue, request) serialized
//
// Thread-safety: Recommend() runs on gRPC's threads, many at once; the reply buffer
// is only read (copies share its slice). The meter must outlive the server, and
// the service must outlive the server (its bytes are referenced by replies in flight).
#ifndef ARENA_GRPC_SERVER_CEILING_SERVICE_H_
#define ARENA_GRPC_SERVER_CEILING_SERVICE_H_

#include <string>

#include <grpcpp/support/byte_buffer.h>

#include "core/catalogue.h"
#include "proto/reco.grpc.pb.h"
#include "server/rpc_meter.h"

namespace reco {

// The request reco_load sends first with its defaults (user "load-user-0", 200 items,
// realistic text, seed 1), so that the load client's byte-for-byte check holds.
v1::RecommendRequest DefaultCeilingRequest();

class CeilingService final : public v1::Recommender::WithRawCallbackMethod_Recommend<v1::Recommender::Service> {
 public:
  // `request` must pass ValidateRequest (RecoServer::Start checks it).
  // The catalogue is used once, here.
  CeilingService(const Catalogue& catalogue, const v1::RecommendRequest& request, RpcMeter* meter);

  // The bytes every reply carries: BuildResponse(request), serialized.
  const std::string& reply_bytes() const { return bytes_; }

  grpc::ServerUnaryReactor* Recommend(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  // The same for an async call (reco_server --api async): the one reply, always OK.
  grpc::Status RecommendAsync(grpc::ByteBuffer* response);

 private:
  std::string bytes_;       // owned here; the slice below points into it
  grpc::ByteBuffer reply_;  // one STATIC_SLICE over bytes_
  RpcMeter* const meter_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_CEILING_SERVICE_H_
