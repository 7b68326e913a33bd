// Exact allocation counts per memory mode. These are counts, not timings: they are
// the same on every run and every machine with the same libraries.
#include "core/allocation_ledger.h"

#include "core/response_builder.h"
#include "core/test_util.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

v1::RecommendRequest Request(uint32_t items, v1::TextProfile profile) {
  v1::RecommendRequest r;
  r.set_user_id("ledger");
  r.set_item_count(items);
  r.set_text_profile(profile);
  return r;
}

int LongStrings(const v1::RecommendRequest& request) {
  v1::RecommendResponse r;
  BuildResponse(DefaultCatalogue(), request, &r);
  return testing::StringsLongerThan(r, kSmallStringBytes);
}

TEST(AllocationLedgerTest, CompactProfileArenaPoolAllocatesNothing) {
  Ledger ledger = MeasureLedger(Request(200, v1::TEXT_PROFILE_COMPACT), {});
  const ModeLedger& heap = ledger.ForMode(MemoryMode::kHeap);
  const ModeLedger& arena = ledger.ForMode(MemoryMode::kArena);
  const ModeLedger& pool = ledger.ForMode(MemoryMode::kArenaPool);
  const ModeLedger& reuse = ledger.ForMode(MemoryMode::kReuse);

  EXPECT_GE(heap.build.allocs, 1000);
  EXPECT_EQ(heap.release.frees, heap.build.allocs);  // everything built is freed
  EXPECT_EQ(pool.build.allocs + pool.release.allocs, 0);
  EXPECT_EQ(pool.build.frees + pool.release.frees, 0);
  // A fresh arena: the Arena object plus its growing blocks, a few dozen at most.
  EXPECT_GT(arena.build.allocs, 0);
  EXPECT_LE(arena.build.allocs, 64);
  EXPECT_EQ(arena.release.frees, arena.build.allocs);
  // Clear() keeps repeated elements but deletes singular sub-messages: reuse is
  // between the two, not at zero.
  EXPECT_GT(reuse.build.allocs, 0);
  EXPECT_LT(reuse.build.allocs, heap.build.allocs);
  // Serializing into a buffer that is already big enough allocates nothing.
  for (const ModeLedger& m : ledger.modes) EXPECT_EQ(m.serialize.allocs, 0) << MemoryModeName(m.mode);
}

TEST(AllocationLedgerTest, RealisticProfileArenasStillAllocateOneBufferPerLongString) {
  // protobuf 3.21 keeps the std::string object on the arena but its characters on
  // the heap once they pass the 15-byte small-string buffer. This pins that limit.
  v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_REALISTIC);
  const int long_strings = LongStrings(request);
  ASSERT_GT(long_strings, 1000);
  Ledger ledger = MeasureLedger(request, {});
  const ModeLedger& pool = ledger.ForMode(MemoryMode::kArenaPool);
  EXPECT_EQ(pool.build.allocs, long_strings);
  EXPECT_EQ(pool.release.frees, long_strings);  // freed by Reset()
  const ModeLedger& arena = ledger.ForMode(MemoryMode::kArena);
  EXPECT_GT(arena.build.allocs, long_strings);
  EXPECT_LE(arena.build.allocs, long_strings + 64);
  EXPECT_GT(ledger.ForMode(MemoryMode::kHeap).build.allocs, arena.build.allocs);
}

TEST(AllocationLedgerTest, SteadyStateCountsAreWholeNumbers) {
  Ledger ledger = MeasureLedger(Request(50, v1::TEXT_PROFILE_REALISTIC), {});
  for (const ModeLedger& m : ledger.modes) {
    for (const PhaseCost* c : {&m.build, &m.serialize, &m.release}) {
      EXPECT_EQ(c->allocs, static_cast<double>(static_cast<int64_t>(c->allocs))) << MemoryModeName(m.mode);
      EXPECT_EQ(c->frees, static_cast<double>(static_cast<int64_t>(c->frees))) << MemoryModeName(m.mode);
    }
  }
}

}  // namespace
}  // namespace reco
