// Phase and whole-cycle benchmarks on the MessageStore modes: the code path the server
// runs (Acquire, BuildResponse, serialize into a reused buffer, Release) and the one
// a client runs (Acquire, ParseFromArray, Release).
//
// Timing: a benchmark whose phase needs per-iteration setup (a built message to
// release, a release after a build) times the phase alone with a steady clock and
// reports it with SetIterationTime (UseManualTime; the name ends in /manual_time and
// its cpu_time covers the whole loop, setup included: ignore it). PauseTiming would
// add two clock reads of the thread CPU time per iteration, a visible share of a
// 10-item build. The whole-cycle benchmarks need no setup and use the normal timer.
//
// Allocation counters cover exactly the timed code, on the benchmark thread, after
// the same warm-up as the allocation ledger (3 responses), so they equal the ledger's
// steady-state figures: BM_Build = build, BM_Serialize = serialize, BM_Release =
// release, BM_Cycle = the three summed (tested by bench_matches_ledger).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "bench/allocation_meter.h"
#include "bench/bench_case.h"
#include "bench/benchmark_families.h"
#include "core/message_store.h"
#include "core/response_builder.h"

namespace reco::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The allocation ledger's warm-up (LedgerOptions::warmup_responses): pools fill, buffers grow.
constexpr int kWarmupResponses = 3;

double SecondsBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Where every server-side benchmark starts: the case's store after full cycles
// (Acquire, build, serialize, Release) have filled its pools and grown the buffer.
struct ServerSide {
  explicit ServerSide(const BenchCase& c) : store(MakeMessageStore(c.mode, {})), request(c.Request()) {
    for (int i = 0; i < kWarmupResponses; ++i) {
      MessageLease lease = store->Acquire();
      BuildResponse(DefaultCatalogue(), request, lease.response);
      size = SerializeToBuffer(*lease.response, &buffer);
      store->Release(lease);
    }
  }
  std::unique_ptr<MessageStore> store;
  const v1::RecommendRequest request;
  std::string buffer;  // the reused serialize buffer
  size_t size = 0;     // the response's serialized bytes
};

// Where every client-side benchmark starts: the reply's bytes (what a client
// receives), and the case's store after the same number of parses of them.
struct ClientSide {
  explicit ClientSide(const BenchCase& c)
      : store(MakeMessageStore(c.mode, {})), wire(BuildResponseBytes(DefaultCatalogue(), c.Request())) {
    for (int i = 0; i < kWarmupResponses; ++i) {
      MessageLease lease = store->Acquire();
      ParseInto(lease);
      store->Release(lease);
    }
  }
  bool ParseInto(const MessageLease& lease) const {
    return lease.response->ParseFromArray(wire.data(), static_cast<int>(wire.size()));
  }
  std::unique_ptr<MessageStore> store;
  const std::string wire;
};

// The meter's counters, and bytes and items per second for `serialized_bytes` a reply.
void ReportPhase(benchmark::State& state, const AllocationMeter& meter, const BenchCase& c, size_t serialized_bytes) {
  meter.Report(state);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * serialized_bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * c.items));
}

// Acquire() + BuildResponse(): the ledger's build phase. Manual time.
void Build(benchmark::State& state, const BenchCase& c) {
  ServerSide side(c);
  AllocationMeter meter;
  for (auto _ : state) {
    Clock::time_point t0 = Clock::now();
    meter.Start();
    MessageLease lease = side.store->Acquire();
    BuildResponse(DefaultCatalogue(), side.request, lease.response);
    meter.Stop();
    Clock::time_point t1 = Clock::now();
    benchmark::DoNotOptimize(lease.response);
    state.SetIterationTime(SecondsBetween(t0, t1));
    side.store->Release(lease);
  }
  ReportPhase(state, meter, c, side.size);
}

// The server's "is anyone still waiting?" check (issue 10), alone: system_clock::now()
// against the deadline, then what ServerContextBase::IsCancelled() does in gRPC 1.51
// on the callback API (an atomic load, then a mutex-guarded flag in
// CompletionOp::CheckCancelledAsync). Its cost x checks per build, against the build's
// time, is what --check_every_items trades for how soon an abandoned build stops.
class StopCheck {
 public:
  bool NobodyWaits() {
    if (std::chrono::system_clock::now() >= deadline_) return true;
    if (marked_cancelled_.load(std::memory_order_acquire)) return true;
    std::lock_guard<std::mutex> lock(completion_mu_);
    return cancelled_;
  }

 private:
  const std::chrono::system_clock::time_point deadline_ = std::chrono::system_clock::now() + std::chrono::hours(1);
  std::atomic<bool> marked_cancelled_{false};
  std::mutex completion_mu_;
  bool cancelled_ = false;
};

void StopCheckAlone(benchmark::State& state) {
  StopCheck check;
  for (auto _ : state) benchmark::DoNotOptimize(check.NobodyWaits());
}

// Build with BuildResponseUnlessStopped asking every `every` items (0: plain
// BuildResponse, no check).
void BuildChecked(benchmark::State& state, const BenchCase& c, uint32_t every) {
  ServerSide side(c);
  StopCheck check;
  uint64_t checks = 0;
  auto counted = [&] { return ++checks, check.NobodyWaits(); };
  for (auto _ : state) {
    MessageLease lease = side.store->Acquire();
    if (every == 0) {
      BuildResponse(DefaultCatalogue(), side.request, lease.response);
    } else {
      BuildResponseUnlessStopped(DefaultCatalogue(), side.request, lease.response, counted, every);
    }
    benchmark::DoNotOptimize(lease.response);
    side.store->Release(lease);
  }
  state.counters["checks_per_build"] =
      benchmark::Counter(static_cast<double>(checks) / std::max<int64_t>(1, state.iterations()));
}

// ByteSizeLong() + SerializeWithCachedSizesToArray() of one built response into a
// reused buffer, again and again: the ledger's serialize phase.
void Serialize(benchmark::State& state, const BenchCase& c) {
  ServerSide side(c);
  MessageLease lease = side.store->Acquire();
  BuildResponse(DefaultCatalogue(), side.request, lease.response);
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    side.size = SerializeToBuffer(*lease.response, &side.buffer);
    meter.Stop();
    benchmark::DoNotOptimize(side.buffer.data());
    benchmark::ClobberMemory();
  }
  side.store->Release(lease);
  ReportPhase(state, meter, c, side.size);
}

// Release() of a built response: delete, Clear() or Reset(). Manual time. (Unlike
// the ledger it skips serializing before the release: that only caches sizes, frees
// nothing, and would double the untimed work per iteration.)
void Release(benchmark::State& state, const BenchCase& c) {
  ServerSide side(c);
  AllocationMeter meter;
  for (auto _ : state) {
    MessageLease lease = side.store->Acquire();
    BuildResponse(DefaultCatalogue(), side.request, lease.response);
    Clock::time_point t0 = Clock::now();
    meter.Start();
    side.store->Release(lease);
    meter.Stop();
    Clock::time_point t1 = Clock::now();
    state.SetIterationTime(SecondsBetween(t0, t1));
  }
  ReportPhase(state, meter, c, side.size);
}

// Acquire + build + serialize + release: one whole server-side response.
void Cycle(benchmark::State& state, const BenchCase& c) {
  ServerSide side(c);
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    MessageLease lease = side.store->Acquire();
    BuildResponse(DefaultCatalogue(), side.request, lease.response);
    side.size = SerializeToBuffer(*lease.response, &side.buffer);
    side.store->Release(lease);
    meter.Stop();
    benchmark::DoNotOptimize(side.buffer.data());
  }
  ReportPhase(state, meter, c, side.size);
}

// Acquire() + ParseFromArray() of the reply's bytes: what a client pays to read a
// reply into a heap message, a reused one, a fresh arena or a reused-block arena.
// The release is not timed (BM_ParseCycle includes it). Manual time.
void Parse(benchmark::State& state, const BenchCase& c) {
  ClientSide side(c);
  AllocationMeter meter;
  for (auto _ : state) {
    Clock::time_point t0 = Clock::now();
    meter.Start();
    MessageLease lease = side.store->Acquire();
    const bool ok = side.ParseInto(lease);
    meter.Stop();
    Clock::time_point t1 = Clock::now();
    state.SetIterationTime(SecondsBetween(t0, t1));
    side.store->Release(lease);
    if (!ok) {
      state.SkipWithError("ParseFromArray failed on the builder's own bytes");
      break;
    }
  }
  ReportPhase(state, meter, c, side.wire.size());
}

// Acquire + parse + release: one whole client-side reply.
void ParseCycle(benchmark::State& state, const BenchCase& c) {
  ClientSide side(c);
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    MessageLease lease = side.store->Acquire();
    const bool ok = side.ParseInto(lease);
    side.store->Release(lease);
    meter.Stop();
    if (!ok) {
      state.SkipWithError("ParseFromArray failed on the builder's own bytes");
      break;
    }
  }
  ReportPhase(state, meter, c, side.wire.size());
}

}  // namespace

void RegisterPhaseBenchmarks() {
  struct Family {
    const char* name;
    void (*run)(benchmark::State&, const BenchCase&);
    bool manual_time;
  };
  const Family kFamilies[] = {
      {"BM_Cycle", Cycle, false},    {"BM_Build", Build, true}, {"BM_Serialize", Serialize, false},
      {"BM_Release", Release, true}, {"BM_Parse", Parse, true}, {"BM_ParseCycle", ParseCycle, false},
  };
  // The checks' cost, for choosing reco_server's --check_every_items (docs/server.md).
  benchmark::RegisterBenchmark("BM_StopCheck", StopCheckAlone);
  for (uint32_t every : {0u, 1u, 4u, 16u, 64u}) {
    for (uint32_t items : {200u}) {
      const BenchCase c{MemoryMode::kArenaPool, items, v1::TEXT_PROFILE_REALISTIC};
      benchmark::RegisterBenchmark(absl::StrCat(c.Name("BM_BuildChecked"), "/every:", every).c_str(),
                                   [c, every](benchmark::State& state) { BuildChecked(state, c, every); })
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (const Family& family : kFamilies) {
    for (uint32_t items : GridItemCounts()) {
      for (v1::TextProfile profile : GridProfiles()) {
        for (MemoryMode mode : AllMemoryModes()) {
          const BenchCase c{mode, items, profile};
          auto run = family.run;
          benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
              c.Name(family.name).c_str(), [run, c](benchmark::State& state) { run(state, c); });
          b->Unit(benchmark::kMicrosecond);
          if (family.manual_time) b->UseManualTime();
        }
      }
    }
  }
}

}  // namespace reco::bench
