// StatsPlugin: a grpc::ServerBuilderPlugin that registers reco.v1.ServerStats on the
// server being built -- the way gRPC's reflection plugin adds its service -- so the
// service is owned by the server it serves (gRPC's ServerInitializer keeps it).
//
// Two ways in: AddStatsPlugin(builder, ...) puts one on that builder only
// (EnableServerStats, through a ServerBuilderOption); the preload library registers a
// factory with grpc::ServerBuilder::InternalAddPluginFactory so that every builder
// made afterwards gets one.
//
// A server that already serves reco.v1.ServerStats (reco_server, or a server linking
// the library and also given the preload one) keeps its own: the plugin then adds
// nothing.
//
// Example:
//   reco::AddStatsPlugin(builder, {"heap", "reco_server_stats", false}, /*allow_reset=*/false);
//
// Thread-safety: before BuildAndStart, from the builder's thread. The service it
// registers answers on gRPC's threads (ServiceStats serializes snapshots).
#ifndef ARENA_GRPC_STATS_STATS_PLUGIN_H_
#define ARENA_GRPC_STATS_STATS_PLUGIN_H_

#include <memory>
#include <string>

#include <grpcpp/impl/server_builder_plugin.h>
#include <grpcpp/server_builder.h>

#include "stats/service_stats.h"

namespace reco {

std::unique_ptr<grpc::ServerBuilderPlugin> NewStatsPlugin(StatsIdentity identity, bool allow_reset);
void AddStatsPlugin(grpc::ServerBuilder& builder, StatsIdentity identity, bool allow_reset);

}  // namespace reco

#endif  // ARENA_GRPC_STATS_STATS_PLUGIN_H_
