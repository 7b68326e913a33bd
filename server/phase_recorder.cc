// See phase_recorder.h.
#include "server/phase_recorder.h"

#include <atomic>

#include "core/histogram_proto.h"

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
  totals.allocations_per_call.Record(sample.allocations.allocs);
}

void PhaseRecorder::CountRpc(grpc::StatusCode code) {
  Shard& shard = ThisThreadShard();
  std::lock_guard<std::mutex> lock(shard.mu);
  Totals& t = shard.totals;
  const int index = static_cast<int>(code);
  if (index >= 0 && index < kStatusCodes) ++t.by_code[index];
  if (code == grpc::StatusCode::OK) {
    ++t.rpcs;
    return;
  }
  ++t.rpc_errors;
  if (code == grpc::StatusCode::INVALID_ARGUMENT) ++t.invalid;
  if (code == grpc::StatusCode::RESOURCE_EXHAUSTED) ++t.over_budget;
  if (code == grpc::StatusCode::CANCELLED || code == grpc::StatusCode::DEADLINE_EXCEEDED) ++t.abandoned;
}

void PhaseRecorder::Totals::Add(const Totals& o) {
  for (int p = 0; p < kPhaseCount; ++p) {
    phase[p].latency.Merge(o.phase[p].latency);
    phase[p].allocations += o.phase[p].allocations;
    phase[p].allocations_per_call.Merge(o.phase[p].allocations_per_call);
  }
  rpcs += o.rpcs;
  rpc_errors += o.rpc_errors;
  invalid += o.invalid;
  over_budget += o.over_budget;
  abandoned += o.abandoned;
  for (int c = 0; c < kStatusCodes; ++c) by_code[c] += o.by_code[c];
}

PhaseRecorder::Totals PhaseRecorder::SumShards(bool reset) {
  Totals sum;
  for (Shard& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard.mu);
    sum.Add(shard.totals);
    if (reset) {
      for (PhaseTotals& phase : shard.totals.phase) {
        phase.latency.Clear();
        phase.allocations = AllocationCounts();
        phase.allocations_per_call.Clear();
      }
      Totals& t = shard.totals;
      t.rpcs = t.rpc_errors = t.invalid = t.over_budget = t.abandoned = 0;
      t.by_code.fill(0);
    }
  }
  return sum;
}

PhaseRecorder::Totals PhaseRecorder::Snapshot(bool reset) {
  std::lock_guard<std::mutex> lock(carry_mu_);
  Totals window = SumShards(reset);
  if (reset) closed_.Add(window);
  return window;
}

PhaseRecorder::Totals PhaseRecorder::SinceStart() {
  std::lock_guard<std::mutex> lock(carry_mu_);
  Totals all = SumShards(/*reset=*/false);
  all.Add(closed_);
  return all;
}

void CallCountsToProto(const PhaseRecorder::Totals& totals, v1::StatsSnapshot* s) {
  s->set_rpcs(totals.rpcs);
  s->set_rpc_errors(totals.rpc_errors);
  s->set_rpc_invalid(totals.invalid);
  s->set_rpc_over_budget(totals.over_budget);
  s->set_rpc_abandoned(totals.abandoned);
  for (uint64_t calls : totals.by_code) s->add_rpcs_by_code(calls);
}

void PhaseToProto(const PhaseRecorder::PhaseTotals& totals, v1::PhaseStats* out) {
  HistogramToProto(totals.latency, out->mutable_latency());
  HistogramToProto(totals.allocations_per_call, out->mutable_allocations_per_call());
  v1::AllocationTotals* allocations = out->mutable_allocations();
  allocations->set_allocs(totals.allocations.allocs);
  allocations->set_frees(totals.allocations.frees);
  allocations->set_bytes(totals.allocations.bytes);
}

}  // namespace reco
