// Allocation counters for Google Benchmark. See allocation_meter.h.
#include "bench/allocation_meter.h"

namespace reco::bench {

void AllocationMeter::Report(benchmark::State& state) const {
  using benchmark::Counter;
  state.counters["allocs"] = Counter(static_cast<double>(total_.allocs), Counter::kAvgIterations);
  state.counters["frees"] = Counter(static_cast<double>(total_.frees), Counter::kAvgIterations);
  state.counters["bytes_alloc"] = Counter(static_cast<double>(total_.bytes), Counter::kAvgIterations);
}

void AllocationCountingMemoryManager::Start() { start_ = AllocationCounter::ThisThread(); }

void AllocationCountingMemoryManager::Stop(Result* result) {
  AllocationCounts used = AllocationCounter::ThisThread() - start_;
  result->num_allocs = static_cast<int64_t>(used.allocs);
  result->max_bytes_used = 0;
  result->total_allocated_bytes = static_cast<int64_t>(used.bytes);
  // net_heap_growth stays TombstoneValue (not reported): freed bytes are not counted.
}

}  // namespace reco::bench
