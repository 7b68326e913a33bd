// See service_stats.h.
#include "stats/service_stats.h"

#include "absl/strings/str_cat.h"

namespace reco {

ServiceStats& ServiceStats::Get() {
  // Leaked on purpose (see the header): never destroyed, so never used after destruction.
  static ServiceStats* const stats = new ServiceStats();
  return *stats;
}

void ServiceStats::Fill(const StatsIdentity& identity, const PhaseRecorder::Totals& totals, const ProcessWindow& window,
                        v1::StatsSnapshot* s) const {
  window.Fill(s);
  s->set_mode(identity.label.empty() ? "service" : identity.label);
  s->set_source(identity.source);
  s->set_rpcs_not_counted(identity.rpcs_not_counted);
  if (!identity.rpcs_not_counted) CallCountsToProto(totals, s);
  if (build_measured_.load(std::memory_order_relaxed)) {
    PhaseToProto(totals.phase[static_cast<int>(Phase::kBuild)], s->mutable_build());
  }
  if (pool_) {
    const PoolCounts c = pool_();
    v1::StoreStats* store = s->mutable_store();
    store->set_acquired(c.acquired);
    store->set_released(c.released);
    store->set_created(c.created + c.unpooled);  // StoreStats.created counts the unpooled too
    store->set_unpooled(c.unpooled);
    store->set_in_use(c.acquired > c.released ? c.acquired - c.released : 0);
    store->set_arena_overflows(c.overflows);
  }
}

void ServiceStats::SetPool(std::function<PoolCounts()> pool) {
  std::lock_guard<std::mutex> lock(mu_);
  pool_ = std::move(pool);
}

v1::StatsSnapshot ServiceStats::Snapshot(const StatsIdentity& identity, bool reset) {
  std::lock_guard<std::mutex> lock(mu_);
  v1::StatsSnapshot s;
  // The counts first and the process figures right after, so both cover (nearly)
  // the same span.
  Fill(identity, recorder_.Snapshot(reset), window_, &s);
  if (reset) window_.Restart();
  return s;
}

v1::StatsSnapshot ServiceStats::SinceStart(const StatsIdentity& identity) {
  std::lock_guard<std::mutex> lock(mu_);
  v1::StatsSnapshot s;
  Fill(identity, recorder_.SinceStart(), since_start_, &s);
  return s;
}

absl::Status ServiceStats::ServeMetrics(const std::string& listen, const StatsIdentity& identity) {
  std::lock_guard<std::mutex> lock(metrics_mu_);
  if (metrics_ != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("metrics_listen=", listen, ": this process already serves metrics on port ", metrics_->port()));
  }
  auto endpoint = MetricsEndpoint::Start(listen, [this, identity] { return SinceStart(identity); });
  if (!endpoint.ok()) return endpoint.status();
  metrics_ = *std::move(endpoint);
  return absl::OkStatus();
}

int ServiceStats::metrics_port() {
  std::lock_guard<std::mutex> lock(metrics_mu_);
  return metrics_ == nullptr ? 0 : metrics_->port();
}

}  // namespace reco
