// See phase_recorder.h.
#include "server/phase_recorder.h"

#include <atomic>

namespace reco {

PhaseRecorder::Shard& PhaseRecorder::ThisThreadShard() {
  static std::atomic<unsigned> next_shard{0};
  // One index per thread for every recorder: threads spread evenly over shards.
  thread_local const unsigned index = next_shard.fetch_add(1, std::memory_order_relaxed) % kShards;
  return shards_[index];
}

void PhaseRecorder::Record(Phase phase, const PhaseSample& sample) {
  Shard& shard = ThisThreadShard();
  std::lock_guard<std::mutex> lock(shard.mu);
  PhaseTotals& totals = shard.totals.phase[static_cast<int>(phase)];
  totals.latency.Record(sample.nanos);
  totals.allocations += sample.allocations;
}

void PhaseRecorder::CountRpc(grpc::StatusCode code) {
  Shard& shard = ThisThreadShard();
  std::lock_guard<std::mutex> lock(shard.mu);
  Totals& t = shard.totals;
  if (code == grpc::StatusCode::OK) {
    ++t.rpcs;
    return;
  }
  ++t.rpc_errors;
  if (code == grpc::StatusCode::INVALID_ARGUMENT) ++t.invalid;
  if (code == grpc::StatusCode::RESOURCE_EXHAUSTED) ++t.over_budget;
  if (code == grpc::StatusCode::CANCELLED || code == grpc::StatusCode::DEADLINE_EXCEEDED) ++t.abandoned;
}

PhaseRecorder::Totals PhaseRecorder::Snapshot(bool reset) {
  Totals sum;
  for (Shard& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard.mu);
    for (int p = 0; p < kPhaseCount; ++p) {
      sum.phase[p].latency.Merge(shard.totals.phase[p].latency);
      sum.phase[p].allocations += shard.totals.phase[p].allocations;
      if (reset) {
        shard.totals.phase[p].latency.Clear();
        shard.totals.phase[p].allocations = AllocationCounts();
      }
    }
    Totals& t = shard.totals;
    sum.rpcs += t.rpcs;
    sum.rpc_errors += t.rpc_errors;
    sum.invalid += t.invalid;
    sum.over_budget += t.over_budget;
    sum.abandoned += t.abandoned;
    if (reset) t.rpcs = t.rpc_errors = t.invalid = t.over_budget = t.abandoned = 0;
  }
  return sum;
}

}  // namespace reco
