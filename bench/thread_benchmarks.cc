// Multi-threaded benchmarks, 1 thread up to the core count (real time, so the
// reported time per iteration is wall time / responses of all threads, the inverse
// of throughput):
//
//   BM_CycleThreaded  whole server-side cycles on ONE MessageStore shared by all
//                     threads, as the server shares it between RPC threads: shows the
//                     cost of the pools' mutex and of the allocator under concurrency.
//   BM_ArenaSharing   arena:per_thread -- each thread builds into its own Arena and
//                     resets it every kBatch responses; arena:shared -- every thread
//                     builds into ONE Arena (protobuf arenas allow concurrent
//                     allocation) and, every kBatch responses, all threads meet at a
//                     barrier, thread 0 resets the arena, and all meet again before
//                     anyone allocates. Both use default ArenaOptions; the difference
//                     is what sharing costs: arena contention plus stop-the-world resets.
//
// Google Benchmark runs the same number of iterations on every thread of a run, so
// every thread reaches each batch boundary and the barrier rounds always fill.
// Counters are per-thread AllocationMeters, summed over threads and divided by all
// iterations.
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include <benchmark/benchmark.h>

#include "bench/allocation_meter.h"
#include "bench/bench_case.h"
#include "bench/benchmark_families.h"
#include "bench/cyclic_barrier.h"
#include "core/message_store.h"
#include "core/response_builder.h"
#include "google/protobuf/arena.h"

namespace reco::bench {
namespace {

using google::protobuf::Arena;

constexpr uint32_t kThreadedItems = 200;
// Responses each thread builds between two resets. Small enough that a shared arena
// stays a few MB; large enough that the two barrier rounds are a minor cost.
constexpr int kBatch = 8;
constexpr int kWarmupResponses = 3;

int MaxThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void CycleThreaded(benchmark::State& state, MessageStore* store, const BenchCase& c) {
  const v1::RecommendRequest request = c.Request();
  std::string buffer;
  size_t size = 0;
  for (int i = 0; i < kWarmupResponses; ++i) {
    MessageLease lease = store->Acquire();
    BuildResponse(DefaultCatalogue(), request, lease.response);
    size = SerializeToBuffer(*lease.response, &buffer);
    store->Release(lease);
  }
  AllocationMeter meter;
  for (auto _ : state) {
    meter.Start();
    MessageLease lease = store->Acquire();
    BuildResponse(DefaultCatalogue(), request, lease.response);
    SerializeToBuffer(*lease.response, &buffer);
    store->Release(lease);
    meter.Stop();
    benchmark::DoNotOptimize(buffer.data());
  }
  meter.Report(state);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * c.items));
}

// What the threads of a shared-arena run share. Made at registration and kept for
// the process's life; every run leaves the arena reset.
struct SharedArena {
  Arena arena;
  CyclicBarrier barrier;
  // Threads taking part in the current run. Not state.threads(): Google Benchmark
  // 1.7.1's MemoryManager pass runs a threads:N benchmark on ONE thread with
  // threads() still N, and a barrier waiting for N would never open.
  std::atomic<int> participants{0};
};

void ArenaSharing(benchmark::State& state, SharedArena* shared, v1::TextProfile profile) {
  const v1::RecommendRequest request = LedgerRequest(kThreadedItems, profile);
  if (shared != nullptr) shared->participants.fetch_add(1);
  int threads = 0;  // read once every participant has joined: see below
  const bool thread0 = state.thread_index() == 0;
  Arena own;  // used when shared == nullptr
  Arena* arena = shared != nullptr ? &shared->arena : &own;
  std::string buffer;
  size_t size = 0;
  int built = 0;
  AllocationMeter meter;
  for (auto _ : state) {
    // Google Benchmark's start barrier sits at loop entry, so every thread of this
    // run has joined by now; none leaves before the final barrier below.
    if (threads == 0 && shared != nullptr) threads = shared->participants.load();
    meter.Start();
    v1::RecommendResponse* response = Arena::CreateMessage<v1::RecommendResponse>(arena);
    BuildResponse(DefaultCatalogue(), request, response);
    size = SerializeToBuffer(*response, &buffer);
    if (++built == kBatch) {
      built = 0;
      if (shared == nullptr) {
        own.Reset();
      } else {
        shared->barrier.Wait(threads);  // every thread has stopped allocating
        if (thread0) shared->arena.Reset();
        shared->barrier.Wait(threads);  // nobody allocates before the reset is done
      }
    }
    meter.Stop();
    benchmark::DoNotOptimize(buffer.data());
  }
  if (shared != nullptr) {  // leave the shared arena empty for the next run
    shared->barrier.Wait(threads);
    if (thread0) shared->arena.Reset();
    shared->participants.fetch_sub(1);  // the next run starts after every thread returned
  }
  meter.Report(state);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kThreadedItems));
}

}  // namespace

void RegisterThreadBenchmarks() {
  for (v1::TextProfile profile : GridProfiles()) {
    for (MemoryMode mode : AllMemoryModes()) {
      const BenchCase c{mode, kThreadedItems, profile};
      // The store outlives every run: Google Benchmark keeps the lambda until exit.
      std::shared_ptr<MessageStore> store = MakeMessageStore(mode, {});
      benchmark::RegisterBenchmark(c.Name("BM_CycleThreaded").c_str(),
                                   [store, c](benchmark::State& state) { CycleThreaded(state, store.get(), c); })
          ->ThreadRange(1, MaxThreads())
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (v1::TextProfile profile : GridProfiles()) {
    for (bool share : {false, true}) {
      std::shared_ptr<SharedArena> shared = share ? std::make_shared<SharedArena>() : nullptr;
      const std::string name = std::string("BM_ArenaSharing/arena:") + (share ? "shared" : "per_thread") +
                               "/items:" + std::to_string(kThreadedItems) + "/" + ProfileLabel(profile);
      benchmark::RegisterBenchmark(
          name.c_str(), [shared, profile](benchmark::State& state) { ArenaSharing(state, shared.get(), profile); })
          ->ThreadRange(1, MaxThreads())
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace reco::bench
