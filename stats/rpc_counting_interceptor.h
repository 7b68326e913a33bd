// RpcCountingInterceptor: counts each RPC a server answers by its final status, into
// ServiceStats' recorder (OK -> rpcs, anything else -> rpc_errors). The
// ServerStats/GetStats calls are not counted: for them the factory makes no
// interceptor at all, so reading the stats costs nothing per call here.
//
// Example:
//   std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> v;
//   v.push_back(std::make_unique<reco::RpcCountingInterceptorFactory>());
//   builder.experimental().SetInterceptorCreators(std::move(v));
//
// Thread-safety: gRPC creates and runs the interceptors on its threads; the recorder
// takes any thread.
#ifndef ARENA_GRPC_STATS_RPC_COUNTING_INTERCEPTOR_H_
#define ARENA_GRPC_STATS_RPC_COUNTING_INTERCEPTOR_H_

#include <grpcpp/support/server_interceptor.h>

namespace reco {

class RpcCountingInterceptorFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;
};

}  // namespace reco

#endif  // ARENA_GRPC_STATS_RPC_COUNTING_INTERCEPTOR_H_
