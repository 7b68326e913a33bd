// ArenaOptions swept for a 200-item response, so users see where the arena's block
// mallocs go and what a too-small or too-large first block costs. Each iteration is
// a whole cycle: CreateMessage, BuildResponse, serialize into a reused buffer, then
// free the arena.
//
//   BM_ArenaBlocks/start_block:S/max_block:M   a fresh Arena per response (as the
//       `arena` mode) whose heap blocks start at S bytes and double up to M
//       (protobuf 3.21 defaults: 256 B and 8 KiB).
//   BM_ArenaInitialBlock/initial_block:B        one Arena reused with Reset() (as the
//       `arena_pool` mode) whose first B bytes are a caller-owned block that Reset()
//       keeps; B = 0 means no initial block, so every response regrows from 256 B.
//
// Counters besides allocs/frees/bytes_alloc (per iteration):
//   arena_blocks     heap blocks the arena allocated per response (counted through
//                    ArenaOptions::block_alloc), i.e. the arena's share of allocs;
//                    the rest are string payloads over 15 bytes.
//   space_allocated  Arena::SpaceAllocated() after one response: bytes of blocks the
//                    arena holds, initial block included.
//   space_used       Arena::SpaceUsed() after one response: bytes handed out
//                    (protobuf calls it a best-effort figure).
#include <cstdlib>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "bench/allocation_meter.h"
#include "bench/bench_case.h"
#include "bench/benchmark_families.h"
#include "core/response_builder.h"
#include "google/protobuf/arena.h"

namespace reco::bench {
namespace {

using google::protobuf::Arena;
using google::protobuf::ArenaOptions;

constexpr uint32_t kSweepItems = 200;
constexpr int kWarmupResponses = 3;

// Blocks allocated by arenas on this thread. The benchmarks here are single-threaded.
thread_local uint64_t t_arena_blocks = 0;

void* CountedBlockAlloc(size_t bytes) {
  ++t_arena_blocks;
  return std::malloc(bytes);
}
void CountedBlockDealloc(void* block, size_t) { std::free(block); }

ArenaOptions CountedOptions() {
  ArenaOptions options;
  options.block_alloc = CountedBlockAlloc;
  options.block_dealloc = CountedBlockDealloc;
  return options;
}

// A response built on `arena` with Arena::CreateMessage (see message_store.h on why
// not Arena::Create).
v1::RecommendResponse* BuildOn(Arena* arena, const v1::RecommendRequest& request) {
  v1::RecommendResponse* response = Arena::CreateMessage<v1::RecommendResponse>(arena);
  BuildResponse(DefaultCatalogue(), request, response);
  return response;
}

// "256B", "16KiB", "2MiB": sizes in names, so that filters read well.
std::string SizeLabel(size_t bytes) {
  if (bytes != 0 && bytes % (1024 * 1024) == 0) return absl::StrCat(bytes / (1024 * 1024), "MiB");
  if (bytes != 0 && bytes % 1024 == 0) return absl::StrCat(bytes / 1024, "KiB");
  return absl::StrCat(bytes, "B");
}

void ReportArena(benchmark::State& state, const Arena& arena, uint64_t blocks, size_t serialized) {
  using benchmark::Counter;
  state.counters["arena_blocks"] = Counter(static_cast<double>(blocks), Counter::kAvgIterations);
  state.counters["space_allocated"] = static_cast<double>(arena.SpaceAllocated());
  state.counters["space_used"] = static_cast<double>(arena.SpaceUsed());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * serialized));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kSweepItems));
}

void ArenaBlocks(benchmark::State& state, size_t start_block, size_t max_block, v1::TextProfile profile) {
  const v1::RecommendRequest request = LedgerRequest(kSweepItems, profile);
  ArenaOptions options = CountedOptions();
  options.start_block_size = start_block;
  options.max_block_size = max_block;
  std::string buffer;
  size_t size = 0;
  for (int i = 0; i < kWarmupResponses; ++i) {
    Arena arena(options);
    size = SerializeToBuffer(*BuildOn(&arena, request), &buffer);
  }
  AllocationMeter meter;
  const uint64_t blocks_before = t_arena_blocks;
  for (auto _ : state) {
    meter.Start();
    {
      Arena arena(options);
      SerializeToBuffer(*BuildOn(&arena, request), &buffer);
    }
    meter.Stop();
    benchmark::DoNotOptimize(buffer.data());
  }
  const uint64_t blocks = t_arena_blocks - blocks_before;
  meter.Report(state);
  Arena sample(options);  // one more response, untimed, to read the space figures
  BuildOn(&sample, request);
  ReportArena(state, sample, blocks, size);
}

void ArenaInitialBlock(benchmark::State& state, size_t initial_block, v1::TextProfile profile) {
  const v1::RecommendRequest request = LedgerRequest(kSweepItems, profile);
  std::unique_ptr<char[]> block(initial_block > 0 ? new char[initial_block] : nullptr);
  ArenaOptions options = CountedOptions();
  options.initial_block = block.get();
  options.initial_block_size = initial_block;
  Arena arena(options);  // declared after `block`, which must outlive it
  std::string buffer;
  size_t size = 0;
  for (int i = 0; i < kWarmupResponses; ++i) {
    size = SerializeToBuffer(*BuildOn(&arena, request), &buffer);
    arena.Reset();
  }
  AllocationMeter meter;
  const uint64_t blocks_before = t_arena_blocks;
  for (auto _ : state) {
    meter.Start();
    SerializeToBuffer(*BuildOn(&arena, request), &buffer);
    arena.Reset();
    meter.Stop();
    benchmark::DoNotOptimize(buffer.data());
  }
  const uint64_t blocks = t_arena_blocks - blocks_before;
  meter.Report(state);
  BuildOn(&arena, request);  // one more response, untimed, to read the space figures
  ReportArena(state, arena, blocks, size);
  arena.Reset();
}

}  // namespace

void RegisterArenaOptionBenchmarks() {
  // (start_block_size, max_block_size): protobuf's default (256 B, 8 KiB) among
  // smaller, larger and fixed-size block plans.
  const std::pair<size_t, size_t> kBlockPlans[] = {{256, 256},   {256, 1024},   {256, 8192},    {256, 65536},
                                                   {1024, 8192}, {4096, 65536}, {16384, 65536}, {65536, 65536}};
  const size_t kInitialBlocks[] = {0, 16 << 10, 64 << 10, 256 << 10, 512 << 10, 2 << 20};
  for (v1::TextProfile profile : GridProfiles()) {
    for (const auto& [start, max] : kBlockPlans) {
      const std::string name =
          absl::StrCat("BM_ArenaBlocks/start_block:", SizeLabel(start), "/max_block:", SizeLabel(max),
                       "/items:", kSweepItems, "/", ProfileLabel(profile));
      const size_t s = start, m = max;
      benchmark::RegisterBenchmark(name.c_str(), [s, m, profile](benchmark::State& state) {
        ArenaBlocks(state, s, m, profile);
      })->Unit(benchmark::kMicrosecond);
    }
    for (size_t initial : kInitialBlocks) {
      const std::string name = absl::StrCat("BM_ArenaInitialBlock/initial_block:", SizeLabel(initial),
                                            "/items:", kSweepItems, "/", ProfileLabel(profile));
      benchmark::RegisterBenchmark(name.c_str(), [initial, profile](benchmark::State& state) {
        ArenaInitialBlock(state, initial, profile);
      })->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace reco::bench
