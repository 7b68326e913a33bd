// BenchCase: one point of the benchmark grid (memory mode x item count x text
// profile), its readable name and the request it builds, plus the serialize step the
// benchmarks share with the allocation ledger.
//
// Names follow Google Benchmark's "name/arg:value" style, with words where the
// library would print numbers, so that filters read well:
//   BenchCase c{reco::MemoryMode::kArenaPool, 200, reco::v1::TEXT_PROFILE_COMPACT};
//   c.Name("BM_Cycle")   // "BM_Cycle/mode:arena_pool/items:200/profile:compact"
//
// The request is the one tools/alloc_ledger measures (user "ledger-user", seed 1):
// the builder is deterministic but the seed decides how many realistic strings are
// longer than 15 bytes, so the bench_matches_ledger test needs the same request.
//
// Thread-safety: plain values and pure functions; any thread.
#ifndef ARENA_GRPC_BENCH_BENCH_CASE_H_
#define ARENA_GRPC_BENCH_BENCH_CASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/allocation_ledger.h"
#include "core/message_store.h"
#include "proto/reco.pb.h"

namespace reco::bench {

struct BenchCase {
  MemoryMode mode = MemoryMode::kHeap;
  uint32_t items = 200;
  v1::TextProfile profile = v1::TEXT_PROFILE_REALISTIC;

  // "<prefix>/mode:<mode>/items:<n>/profile:<profile>".
  std::string Name(const std::string& prefix) const;
  v1::RecommendRequest Request() const;
};

// Item counts and profiles every phase benchmark runs: small to large responses.
const std::vector<uint32_t>& GridItemCounts();       // 10, 50, 200, 1000
const std::vector<v1::TextProfile>& GridProfiles();  // realistic, compact

// "profile:<name>" for names built by hand.
std::string ProfileLabel(v1::TextProfile profile);

// The ledger's request and serialize phase, so that counts match alloc_ledger's.
using ::reco::LedgerRequest;
using ::reco::SerializeToBuffer;

}  // namespace reco::bench

#endif  // ARENA_GRPC_BENCH_BENCH_CASE_H_
