// PhaseRecorder: the per-RPC figures of the Recommend path -- latency and allocations
// of the build, serialize and release phases, and the OK / error RPC counts --
// collected without a global lock.
//
// Each thread records into one of kShards shards (picked once per thread, round
// robin), each with its own mutex, so concurrent handlers rarely meet on a lock and
// the hot path never allocates. Snapshot() merges the shards (exact: histograms
// share their buckets) and, with reset, starts a new window. A sample lands wholly in
// one window: it is added under its shard's lock. SinceStart() adds the windows a
// reset closed to the open one: totals since construction, which only grow (what a
// Prometheus counter needs; server/prometheus_metrics.h).
//
// Example:
//   reco::PhaseRecorder recorder;
//   reco::PhaseClock clock;                        // t0 and this thread's counters
//   ...build the response...
//   recorder.Record(reco::Phase::kBuild, clock.Elapsed());
//   reco::PhaseRecorder::Totals totals = recorder.Snapshot(/*reset=*/false);
//   totals.phase[0].latency.count()                // 1
//
// Memory: fixed at construction -- six histograms of LatencyHistogram's bucket count
// per shard, and one more set of six for the closed windows; nothing grows with calls.
//
// Thread-safety: every method may be called from any thread.
#ifndef ARENA_GRPC_SERVER_PHASE_RECORDER_H_
#define ARENA_GRPC_SERVER_PHASE_RECORDER_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>

#include <grpcpp/support/status.h>

#include "core/allocation_counter.h"
#include "core/latency_histogram.h"
#include "proto/stats.pb.h"

namespace reco {

enum class Phase { kBuild = 0, kSerialize = 1, kRelease = 2 };
inline constexpr int kPhaseCount = 3;

// One phase of one RPC: its wall time and the allocations the thread made in it.
struct PhaseSample {
  uint64_t nanos = 0;
  AllocationCounts allocations;

  PhaseSample& operator+=(const PhaseSample& o) {
    nanos += o.nanos;
    allocations += o.allocations;
    return *this;
  }
};

// Starts a phase on the calling thread; Elapsed() must be called on the same thread
// (the allocation figures are that thread's).
class PhaseClock {
 public:
  PhaseClock() : allocations_(AllocationCounter::ThisThread()), start_(std::chrono::steady_clock::now()) {}
  PhaseSample Elapsed() const {
    // Clock first, counters second: mirror image of the constructor, so the
    // counter reads sit outside the timed span as far as possible.
    auto end = std::chrono::steady_clock::now();
    PhaseSample s;
    s.nanos = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start_).count());
    s.allocations = AllocationCounter::ThisThread() - allocations_;
    return s;
  }

 private:
  AllocationCounts allocations_;
  std::chrono::steady_clock::time_point start_;
};

class PhaseRecorder {
 public:
  struct PhaseTotals {
    LatencyHistogram latency;
    AllocationCounts allocations;
    // The allocation calls of each sample, in the same log-linear layout (a value is
    // a count, not nanoseconds): exact below 128, within 1% above.
    LatencyHistogram allocations_per_call;
  };
  static constexpr int kStatusCodes = 17;  // grpc::StatusCode 0 (OK) .. 16 (UNAUTHENTICATED)
  struct Totals {
    std::array<PhaseTotals, kPhaseCount> phase;
    uint64_t rpcs = 0;                             // answered OK
    uint64_t rpc_errors = 0;                       // finished with a non-OK status (all of the below, and any other)
    uint64_t invalid = 0;                          // of those, INVALID_ARGUMENT: the request failed validation
    uint64_t over_budget = 0;                      // RESOURCE_EXHAUSTED: refused by the reply budget
    uint64_t abandoned = 0;                        // CANCELLED or DEADLINE_EXCEEDED: the caller stopped waiting
    std::array<uint64_t, kStatusCodes> by_code{};  // every call by its status code

    void Add(const Totals& o);
  };

  void Record(Phase phase, const PhaseSample& sample);
  // Counts one finished call by its status.
  void CountRpc(grpc::StatusCode code);
  // The window's totals; with reset, zero them afterwards (same lock, per shard).
  Totals Snapshot(bool reset);
  // Every call and sample since construction, whatever the resets.
  Totals SinceStart();

 private:
  // 16 shards: a few times the handler threads gRPC runs on a small machine, so two
  // handlers rarely share a lock; 64-byte alignment keeps shards off each other's
  // cache lines.
  static constexpr int kShards = 16;
  struct alignas(64) Shard {
    std::mutex mu;
    Totals totals;
  };
  Shard& ThisThreadShard();
  Totals SumShards(bool reset);

  std::array<Shard, kShards> shards_;
  // The windows closed by resets, summed; carry_mu_ also serializes Snapshot and
  // SinceStart, so no sample is seen twice or missed between the two.
  std::mutex carry_mu_;
  Totals closed_;
};

// The totals in StatsSnapshot's form, as reco_server and the stats library report them:
// the calls by status (rpcs, rpc_errors, rpc_invalid, rpc_over_budget, rpc_abandoned,
// rpcs_by_code), and one phase (latency, allocations, allocations_per_call).
void CallCountsToProto(const PhaseRecorder::Totals& totals, v1::StatsSnapshot* s);
void PhaseToProto(const PhaseRecorder::PhaseTotals& totals, v1::PhaseStats* out);

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_PHASE_RECORDER_H_
