// See stats_plugin.h.
#include "stats/stats_plugin.h"

#include <algorithm>
#include <cstdio>

#include <grpcpp/impl/server_initializer.h>
#include <grpcpp/server_context.h>

#include "proto/stats.grpc.pb.h"

namespace reco {
namespace {

constexpr char kServiceName[] = "reco.v1.ServerStats";

// A synchronous service, as the reflection plugin's: the builder learns from the
// plugin's has_sync_methods() that it needs the sync request machinery, whatever
// API the server's own services use.
class StatsSyncService final : public v1::ServerStats::Service {
 public:
  StatsSyncService(StatsIdentity identity, bool allow_reset)
      : identity_(std::move(identity)), allow_reset_(allow_reset) {}

  grpc::Status GetStats(grpc::ServerContext*, const v1::GetStatsRequest* request,
                        v1::StatsSnapshot* response) override {
    if (request->reset() && !allow_reset_) {
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          "GetStats(reset=true) is off on this server (reco::ServerStatsOptions::allow_reset, or "
                          "RECO_SERVER_STATS_ALLOW_RESET=1 for the preload library): a reset restarts the stats "
                          "window for every reader; take the difference of two snapshots instead");
    }
    *response = ServiceStats::Get().Snapshot(identity_, request->reset());
    return grpc::Status::OK;
  }

 private:
  const StatsIdentity identity_;
  const bool allow_reset_;
};

class StatsPlugin final : public grpc::ServerBuilderPlugin {
 public:
  StatsPlugin(StatsIdentity identity, bool allow_reset)
      : service_(std::make_shared<StatsSyncService>(std::move(identity), allow_reset)) {}

  std::string name() override { return "reco_server_stats"; }
  void InitServer(grpc::ServerInitializer* si) override {
    const std::vector<std::string>* served = si->GetServiceList();
    if (std::find(served->begin(), served->end(), kServiceName) != served->end()) return;  // the server's own
    if (!si->RegisterService(service_)) {
      std::fprintf(stderr, "reco_server_stats: could not register %s on this server\n", kServiceName);
    }
  }
  void Finish(grpc::ServerInitializer*) override {}
  void ChangeArguments(const std::string&, void*) override {}
  bool has_sync_methods() const override { return true; }

 private:
  std::shared_ptr<StatsSyncService> service_;
};

// Adds the plugin to one builder's plugin list (BuildAndStart asks its options first).
class StatsPluginOption final : public grpc::ServerBuilderOption {
 public:
  StatsPluginOption(StatsIdentity identity, bool allow_reset)
      : identity_(std::move(identity)), allow_reset_(allow_reset) {}
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->push_back(NewStatsPlugin(identity_, allow_reset_));
  }

 private:
  const StatsIdentity identity_;
  const bool allow_reset_;
};

}  // namespace

std::unique_ptr<grpc::ServerBuilderPlugin> NewStatsPlugin(StatsIdentity identity, bool allow_reset) {
  return std::make_unique<StatsPlugin>(std::move(identity), allow_reset);
}

void AddStatsPlugin(grpc::ServerBuilder& builder, StatsIdentity identity, bool allow_reset) {
  builder.SetOption(std::make_unique<StatsPluginOption>(std::move(identity), allow_reset));
}

}  // namespace reco
