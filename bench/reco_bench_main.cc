// reco_bench: Google Benchmark microbenchmarks of the core library's builder and
// memory modes, with exact allocation counts per iteration. docs/benchmarks.md says
// what each benchmark times and how to run it.
//
//   reco_bench [--benchmark_filter=REGEX] [--benchmark_min_time=SECONDS]
//              [--benchmark_out=FILE --benchmark_out_format=json] [--help]
//
// Unlike Google Benchmark's default (0.5 s), each benchmark runs for at least 0.1 s
// unless --benchmark_min_time is given, so the full set stays a few minutes long.
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/allocation_meter.h"
#include "bench/benchmark_families.h"
#include "core/allocation_counter.h"

int main(int argc, char** argv) {
  static char kDefaultMinTime[] = "--benchmark_min_time=0.1";
  std::vector<char*> args(argv, argv + argc);
  bool min_time_given = false;
  for (char* arg : args) min_time_given |= std::strncmp(arg, "--benchmark_min_time", 20) == 0;
  if (!min_time_given) args.insert(args.begin() + 1, kDefaultMinTime);
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);

  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;

  reco::bench::RegisterPhaseBenchmarks();
  reco::bench::RegisterThreadBenchmarks();
  reco::bench::RegisterArenaOptionBenchmarks();
  reco::bench::RegisterCatalogueBenchmarks();
  reco::bench::RegisterFragmentBenchmarks();
  reco::bench::AllocationCountingMemoryManager memory_manager;
  benchmark::RegisterMemoryManager(&memory_manager);
  benchmark::AddCustomContext("malloc", reco::AllocationCounter::MallocName());

  benchmark::RunSpecifiedBenchmarks();
  benchmark::RegisterMemoryManager(nullptr);
  benchmark::Shutdown();
  return 0;
}
