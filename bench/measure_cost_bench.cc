// What the server's per-RPC measurement costs, measured with Google Benchmark.
//
// Per RPC the server records three phase samples (PhaseClock: two steady_clock reads
// and two thread-local counter reads; PhaseRecorder::Record: a sharded, uncontended
// lock and a histogram increment) and counts the RPC once. The SerializeTimer
// interceptor adds gRPC's per-call interceptor objects, which this benchmark cannot
// see: docs/server.md ("What measuring costs") counts them and measures the whole
// difference end to end with h2load (--measure=false vs true).
//
//   build/bench/measure_cost_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include "server/phase_recorder.h"

namespace reco {
namespace {

PhaseRecorder& Recorder() {
  static PhaseRecorder* recorder = new PhaseRecorder;
  return *recorder;
}

// One phase: start the clock, stop it, record the sample.
void BM_OnePhase(benchmark::State& state) {
  PhaseRecorder& recorder = Recorder();
  for (auto _ : state) {
    PhaseClock clock;
    benchmark::ClobberMemory();
    recorder.Record(Phase::kBuild, clock.Elapsed());
  }
}
BENCHMARK(BM_OnePhase)->Threads(1)->Threads(2);

// Everything one RPC records: three phases and the RPC count.
void BM_PerRpc(benchmark::State& state) {
  PhaseRecorder& recorder = Recorder();
  for (auto _ : state) {
    for (Phase phase : {Phase::kBuild, Phase::kSerialize, Phase::kRelease}) {
      PhaseClock clock;
      benchmark::ClobberMemory();
      recorder.Record(phase, clock.Elapsed());
    }
    recorder.CountRpc(grpc::StatusCode::OK);
  }
}
BENCHMARK(BM_PerRpc)->Threads(1)->Threads(2);

// The parts: a clock pair alone, and a Record alone.
void BM_ClockOnly(benchmark::State& state) {
  for (auto _ : state) {
    PhaseClock clock;
    benchmark::ClobberMemory();
    PhaseSample s = clock.Elapsed();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ClockOnly);

void BM_RecordOnly(benchmark::State& state) {
  PhaseRecorder& recorder = Recorder();
  PhaseSample sample;
  sample.nanos = 150000;
  for (auto _ : state) recorder.Record(Phase::kBuild, sample);
}
BENCHMARK(BM_RecordOnly);

}  // namespace
}  // namespace reco

BENCHMARK_MAIN();
