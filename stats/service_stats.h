// ServiceStats: the process-wide state behind the stats library (server_stats.h) --
// the RPC counts, the build phase and the process window -- and the snapshot made
// from them for reco.v1.ServerStats/GetStats.
//
// One per process (Get()), created on first use and never destroyed: gRPC threads
// may still count RPCs while static destructors run at exit. Its size is fixed at
// creation (PhaseRecorder's shards and histograms); nothing grows with calls.
//
// Example:
//   reco::ServiceStats& stats = reco::ServiceStats::Get();
//   stats.recorder().CountRpc(grpc::StatusCode::OK);
//   reco::v1::StatsSnapshot s = stats.Snapshot({"heap", "reco_server_stats", false}, /*reset=*/false);
//   s.rpcs()   // 1
//
// Thread-safety: every method from any thread; snapshots are serialized.
#ifndef ARENA_GRPC_STATS_SERVICE_STATS_H_
#define ARENA_GRPC_STATS_SERVICE_STATS_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "proto/stats.pb.h"
#include "server/metrics_endpoint.h"
#include "server/phase_recorder.h"
#include "server/process_window.h"
#include "stats/server_stats.h"

namespace reco {

// Who asks for a snapshot: what it reports about itself.
struct StatsIdentity {
  std::string label;              // StatsSnapshot.mode; empty -> "service"
  std::string source;             // StatsSnapshot.source
  bool rpcs_not_counted = false;  // no interceptor counts this server's RPCs
};

class ServiceStats {
 public:
  static ServiceStats& Get();

  PhaseRecorder& recorder() { return recorder_; }
  // Called by StatsBuildScope: from then on snapshots carry the build phase (left
  // unset before, so a server without scopes does not report "0 allocations to build").
  void NoteBuildScope() { build_measured_.store(true, std::memory_order_relaxed); }
  v1::StatsSnapshot Snapshot(const StatsIdentity& identity, bool reset);
  // The same figures since the process's first use, whatever the resets (Prometheus).
  v1::StatsSnapshot SinceStart(const StatsIdentity& identity);
  // Serves SinceStart(identity) on GET http://listen/metrics (server/metrics_endpoint.h)
  // until the process exits. FailedPrecondition when it already serves them.
  absl::Status ServeMetrics(const std::string& listen, const StatsIdentity& identity);
  int metrics_port();  // 0 when not serving metrics
  // The pool whose counts fill StatsSnapshot.store (ServerStatsOptions::pool); set
  // before serving.
  void SetPool(std::function<PoolCounts()> pool);

 private:
  ServiceStats() = default;
  void Fill(const StatsIdentity& identity, const PhaseRecorder::Totals& totals, const ProcessWindow& window,
            v1::StatsSnapshot* s) const;

  PhaseRecorder recorder_;
  std::atomic<bool> build_measured_{false};
  std::mutex mu_;
  ProcessWindow window_;             // guarded by mu_
  const ProcessWindow since_start_;  // never restarted
  std::mutex metrics_mu_;
  std::unique_ptr<MetricsEndpoint> metrics_;  // guarded by metrics_mu_; never destroyed, as this object
  std::function<PoolCounts()> pool_;          // guarded by mu_
};

}  // namespace reco

#endif  // ARENA_GRPC_STATS_SERVICE_STATS_H_
