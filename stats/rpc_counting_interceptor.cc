// See rpc_counting_interceptor.h.
#include "stats/rpc_counting_interceptor.h"

#include <cstring>

#include "stats/service_stats.h"

namespace reco {
namespace {

constexpr char kGetStatsMethod[] = "/reco.v1.ServerStats/GetStats";

class RpcCountingInterceptor final : public grpc::experimental::Interceptor {
 public:
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    // PRE_SEND_STATUS comes once per call, before the status leaves: a client that
    // has its reply finds the call already counted.
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      ServiceStats::Get().recorder().CountRpc(methods->GetSendStatus().error_code());
    }
    methods->Proceed();
  }
};

}  // namespace

grpc::experimental::Interceptor* RpcCountingInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  if (info->method() != nullptr && std::strcmp(info->method(), kGetStatsMethod) == 0) return nullptr;
  return new RpcCountingInterceptor();
}

}  // namespace reco
