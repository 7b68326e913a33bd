// See server_stats.h.
#include "server_stats.h"

#include <cstdio>
#include <string>
#include <vector>

#include "core/allocation_counter.h"
#include "stats/rpc_counting_interceptor.h"
#include "stats/service_stats.h"
#include "stats/stats_plugin.h"

namespace reco {

void EnableServerStats(grpc::ServerBuilder& builder, const std::string& label) {
  ServerStatsOptions options;
  options.label = label;
  EnableServerStats(builder, options);
}

grpc::Status EnableServerStats(grpc::ServerBuilder& builder, const ServerStatsOptions& options) {
  ServiceStats& stats = ServiceStats::Get();  // the window starts now, not at the first GetStats
  if (!AllocationCounter::Interposing()) {
    std::fprintf(stderr,
                 "reco_server_stats: allocations not counted: the program or an LD_PRELOAD defines malloc ahead of "
                 "the stats library (malloc in use: %s); the allocation figures will read n/a\n",
                 AllocationCounter::MallocName().c_str());
  }
  const StatsIdentity identity{options.label, "reco_server_stats", /*rpcs_not_counted=*/false};
  stats.SetPool(options.pool);  // empty: none (a later server's options replace an earlier one's)
  AddStatsPlugin(builder, identity, options.allow_reset);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(NewServerStatsInterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  if (options.metrics_listen.empty()) return grpc::Status::OK;
  absl::Status served = stats.ServeMetrics(options.metrics_listen, identity);
  if (served.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(served.code()), std::string(served.message()));
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> NewServerStatsInterceptorFactory() {
  return std::make_unique<RpcCountingInterceptorFactory>();
}

StatsBuildScope::StatsBuildScope() {
  ServiceStats::Get().NoteBuildScope();
  const AllocationCounts now = AllocationCounter::ThisThread();
  allocs_ = now.allocs;
  frees_ = now.frees;
  bytes_ = now.bytes;
  start_ = std::chrono::steady_clock::now();
}

StatsBuildScope::~StatsBuildScope() {
  // Clock first, counters second: the mirror of the constructor, so the counter
  // reads sit outside the timed span (PhaseClock does the same).
  const auto end = std::chrono::steady_clock::now();
  PhaseSample sample;
  sample.nanos = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start_).count());
  AllocationCounts before;
  before.allocs = allocs_;
  before.frees = frees_;
  before.bytes = bytes_;
  sample.allocations = AllocationCounter::ThisThread() - before;
  ServiceStats::Get().recorder().Record(Phase::kBuild, sample);
}

}  // namespace reco
