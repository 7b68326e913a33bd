// AllocationMeter: exact allocations per benchmark iteration, from AllocationCounter,
// reported as Google Benchmark counters. AllocationCountingMemoryManager: the same
// counts through benchmark::MemoryManager, for tools that read Google Benchmark's
// own memory fields.
//
// A meter counts only what happens on its own thread between Start() and Stop(), so
// a benchmark brackets exactly the code it times; setup, warm-up and other threads
// are left out. In a multi-threaded benchmark each thread keeps its own meter and
// Google Benchmark sums the counters, then divides by the iterations of all threads.
//
// Example:
//   AllocationMeter meter;
//   for (auto _ : state) {
//     meter.Start();
//     ...the measured code...
//     meter.Stop();
//   }
//   meter.Report(state);  // counters allocs, frees, bytes_alloc: per iteration
//
// Thread-safety: a meter belongs to one thread. The memory manager is called by
// Google Benchmark on its main thread, around a run of at most 16 iterations of one
// benchmark; it counts that thread's allocations, so for a multi-threaded benchmark
// it sees the main thread only.
#ifndef ARENA_GRPC_BENCH_ALLOCATION_METER_H_
#define ARENA_GRPC_BENCH_ALLOCATION_METER_H_

#include <benchmark/benchmark.h>

#include "core/allocation_counter.h"

namespace reco::bench {

class AllocationMeter {
 public:
  void Start() { start_ = AllocationCounter::ThisThread(); }
  void Stop() { total_ += AllocationCounter::ThisThread() - start_; }

  // Sets state.counters "allocs", "frees" and "bytes_alloc" (bytes requested), each
  // averaged over the iterations.
  void Report(benchmark::State& state) const;

 private:
  AllocationCounts start_;
  AllocationCounts total_;
};

// Google Benchmark's MemoryManager fed by AllocationCounter. Its run includes the
// benchmark's setup (stores, warm-up) spread over at most 16 iterations, so its
// allocs_per_iter is an upper bound; the steady-state figure is the allocs counter.
// max_bytes_used is not measured (the counter does not know live bytes) and stays 0;
// total_allocated_bytes is the bytes requested.
class AllocationCountingMemoryManager final : public benchmark::MemoryManager {
 public:
  void Start() override;
  void Stop(Result* result) override;

 private:
  AllocationCounts start_;
};

}  // namespace reco::bench

#endif  // ARENA_GRPC_BENCH_ALLOCATION_METER_H_
