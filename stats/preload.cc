// libreco_server_stats_preload.so: the stats service for a server binary that cannot
// be rebuilt (stats/README.md):
//   LD_PRELOAD=<build>/stats/libreco_server_stats_preload.so ./their_server
// Loaded ahead of everything but the executable, its counting malloc takes every
// allocation of the process, and the constructor below asks gRPC to give every
// ServerBuilder made afterwards a StatsPlugin, which adds reco.v1.ServerStats when
// the server is built.
//
// It adds no interceptor (SetInterceptorCreators would replace the server's own), so
// it cannot count RPCs: snapshots say rpcs_not_counted and a client divides by the
// replies it counted itself. Settings come from the environment, the only channel a
// preloaded library has:
//   RECO_SERVER_STATS_LABEL        StatsSnapshot.mode (default "service")
//   RECO_SERVER_STATS_ALLOW_RESET  "1" honours GetStatsRequest.reset
#include <cstdlib>
#include <cstring>

#include <grpcpp/server_builder.h>

#include "stats/service_stats.h"
#include "stats/stats_plugin.h"

namespace reco {
namespace {

std::unique_ptr<grpc::ServerBuilderPlugin> CreatePreloadPlugin() {
  const char* label = std::getenv("RECO_SERVER_STATS_LABEL");
  const char* allow_reset = std::getenv("RECO_SERVER_STATS_ALLOW_RESET");
  return NewStatsPlugin({label != nullptr ? label : "", "reco_server_stats_preload", /*rpcs_not_counted=*/true},
                        allow_reset != nullptr && std::strcmp(allow_reset, "1") == 0);
}

__attribute__((constructor)) void RegisterPreloadPlugin() {
  ServiceStats::Get();  // the window starts with the process
  grpc::ServerBuilder::InternalAddPluginFactory(&CreatePreloadPlugin);
}

}  // namespace
}  // namespace reco
