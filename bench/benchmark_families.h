// The benchmark families reco_bench registers; each Register* call adds one file's
// benchmarks to Google Benchmark's registry. Call them from main() before
// benchmark::RunSpecifiedBenchmarks(), once each, on the main thread.
//
// Example:
//   reco::bench::RegisterPhaseBenchmarks();
//   benchmark::RunSpecifiedBenchmarks();
#ifndef ARENA_GRPC_BENCH_BENCHMARK_FAMILIES_H_
#define ARENA_GRPC_BENCH_BENCHMARK_FAMILIES_H_

namespace reco::bench {

// BM_Build, BM_Serialize, BM_Release, BM_Cycle, BM_Parse, BM_ParseCycle over every
// mode, item count (10, 50, 200, 1000) and text profile (phase_benchmarks.cc).
void RegisterPhaseBenchmarks();

// BM_CycleThreaded (one MessageStore shared by 1..N threads) and BM_ArenaSharing
// (per-thread arenas vs one arena shared by all threads) (thread_benchmarks.cc).
void RegisterThreadBenchmarks();

// BM_ArenaBlocks (start/max block size) and BM_ArenaInitialBlock (reused initial
// block size) for a 200-item response (arena_options_benchmarks.cc).
void RegisterArenaOptionBenchmarks();

// BM_CopyItems: a 200-item reply's items copied from the catalogue with CopyFrom (as
// BuildResponse does) or field by field, over every mode and text profile; the copy
// alone (catalogue_benchmarks.cc).
void RegisterCatalogueBenchmarks();

// BM_Fragments: the fragments path's whole reply (splice, Finish into a ByteBuffer,
// release), items 10, 50, 200, 1000 x text profile, fragments referenced (as the
// server does) or everything copied into one slice (fragment_benchmarks.cc).
void RegisterFragmentBenchmarks();

}  // namespace reco::bench

#endif  // ARENA_GRPC_BENCH_BENCHMARK_FAMILIES_H_
