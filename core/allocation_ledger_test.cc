// Exact allocation counts per memory mode. These are counts, not timings: they are
// the same on every run and every machine with the same libraries.
#include "core/allocation_ledger.h"

#include <initializer_list>

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
  for (const ModeLedger& m : ledger.modes) EXPECT_EQ(m.serialize.allocs, 0) << m.name();
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

// reco_server --mode arena_alias: arena_pool's store with each item's Price, Image,
// Rating, Seller and Shipping aliased from the catalogue. What it saves is exactly the
// copies of those five: their long strings' buffers (and nothing else, the arena's
// block holding the reply either way). The other rows are measured as before.
TEST(AllocationLedgerTest, ArenaAliasSavesExactlyTheSharedSubMessagesLongStrings) {
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    SCOPED_TRACE(TextProfileName(profile));
    const v1::RecommendRequest request = LedgerRequest(200, profile);
    v1::RecommendResponse reply;
    BuildResponse(DefaultCatalogue(), request, &reply);
    int shared_long_strings = 0;
    for (const v1::Item& item : reply.items()) {
      for (const google::protobuf::Message* m : std::initializer_list<const google::protobuf::Message*>{
               &item.price(), &item.image(), &item.rating(), &item.seller(), &item.shipping()}) {
        shared_long_strings += testing::StringsLongerThan(*m, kSmallStringBytes);
      }
    }
    const int long_strings = testing::StringsLongerThan(reply, kSmallStringBytes);
    LedgerOptions options;
    options.modes = {MemoryMode::kArenaPool};
    options.arena_alias = true;
    const Ledger ledger = MeasureLedger(request, options);
    ASSERT_EQ(ledger.modes.size(), 3u) << "arena_pool, arena_alias, fragments";
    EXPECT_EQ(ledger.modes[1].name(), "arena_alias");
    const ModeLedger& pool = ledger.ForMode(MemoryMode::kArenaPool);
    const ModeLedger& alias = ledger.ArenaAlias();
    EXPECT_FALSE(pool.aliased);
    EXPECT_EQ(pool.build.allocs, long_strings);
    EXPECT_EQ(alias.build.allocs, long_strings - shared_long_strings);
    EXPECT_EQ(alias.build.frees, 0);
    EXPECT_EQ(alias.serialize.allocs + alias.serialize.frees, 0);
    EXPECT_EQ(alias.release.allocs, 0);
    EXPECT_EQ(alias.release.frees, alias.build.allocs) << "Reset() frees the reply's own long strings only";
    if (profile == v1::TEXT_PROFILE_REALISTIC) {
      EXPECT_GE(shared_long_strings, 200) << "every item's image url is long: the test must see a saving";
      EXPECT_LT(alias.build.bytes, pool.build.bytes);
    } else {
      EXPECT_EQ(alias.build.allocs + alias.release.frees, 0);
    }
  }
}

// The fragments path builds no message: every allocation is gRPC's. With the
// server's default (SplicedReply::kDefaultCopyFragmentsBelow, 4 KiB: every catalogue
// item is shorter, so all are copied) the reply is sized first and written ONCE into
// one slice, whatever the item count:
//   1  the slice holding the reply's bytes (grpc_slice_malloc: no zero-fill)
//   1  the grpc_byte_buffer (its slice array keeps 8 slices inline: no malloc)
// No scratch holds the bytes; the picked items' score values sit in a per-thread
// scratch that costs nothing once warm. Both blocks are live after the build, and
// the release frees them. (Zero-copy -- every item its own slice, 2n + 1 slices --
// makes the slice array grow by 3/2 from 12: 5, 12 and 16 allocations at 10, 200 and
// 1000 items; reco_bench BM_Fragments/.../reply:zero_copy.)
TEST(AllocationLedgerTest, FragmentsAllocateOnlyTheReplysSlicesWhateverTheItemCount) {
  struct Expected {
    uint32_t items;
    double build_allocs, build_frees;
  };
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    for (const Expected& want : {Expected{10, 2, 0}, Expected{200, 2, 0}, Expected{1000, 2, 0}}) {
      SCOPED_TRACE(::testing::Message() << want.items << " items, " << TextProfileName(profile));
      LedgerOptions options;
      options.modes.clear();
      const Ledger ledger = MeasureLedger(LedgerRequest(want.items, profile), options);
      const ModeLedger& f = ledger.Fragments();
      EXPECT_EQ(f.name(), "fragments");
      EXPECT_EQ(f.build.allocs, want.build_allocs);
      EXPECT_EQ(f.build.frees, want.build_frees);
      EXPECT_EQ(f.build.allocs - f.build.frees, 2) << "live after the build: slice, byte buffer";
      EXPECT_EQ(f.serialize.allocs + f.serialize.frees + f.serialize.bytes, 0) << "the spliced bytes are the reply";
      EXPECT_EQ(f.release.allocs, 0);
      EXPECT_EQ(f.release.frees, 2) << "the release frees what the build left";
    }
  }
}

// The fragments row measures the same reply as the message modes: its bytes are the
// built message's serialized size, for every profile.
TEST(AllocationLedgerTest, FragmentsRowMeasuresTheReplyTheModesSerialize) {
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    const v1::RecommendRequest request = LedgerRequest(50, profile);
    LedgerOptions modes_only;
    modes_only.modes = {MemoryMode::kHeap};
    modes_only.fragments = false;
    LedgerOptions fragments_only;
    fragments_only.modes.clear();
    const Ledger built = MeasureLedger(request, modes_only);
    const Ledger spliced = MeasureLedger(request, fragments_only);
    ASSERT_EQ(built.modes.size(), 1u);
    ASSERT_EQ(spliced.modes.size(), 1u);
    EXPECT_FALSE(built.modes[0].fragments);
    EXPECT_TRUE(spliced.modes[0].fragments);
    EXPECT_GT(built.serialized_bytes, 0u);
    EXPECT_EQ(spliced.serialized_bytes, built.serialized_bytes) << TextProfileName(profile);
  }
}

TEST(AllocationLedgerTest, SteadyStateCountsAreWholeNumbers) {
  Ledger ledger = MeasureLedger(Request(50, v1::TEXT_PROFILE_REALISTIC), {});
  ASSERT_EQ(ledger.modes.size(), AllMemoryModes().size() + 1) << "every mode, then fragments";
  EXPECT_TRUE(ledger.modes.back().fragments);
  for (const ModeLedger& m : ledger.modes) {
    for (const PhaseCost* c : {&m.build, &m.serialize, &m.release}) {
      EXPECT_EQ(c->allocs, static_cast<double>(static_cast<int64_t>(c->allocs))) << m.name();
      EXPECT_EQ(c->frees, static_cast<double>(static_cast<int64_t>(c->frees))) << m.name();
    }
  }
}

}  // namespace
}  // namespace reco
