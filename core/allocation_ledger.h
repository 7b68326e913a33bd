// AllocationLedger: the allocations, frees and bytes of one steady-state response,
// per memory mode and for the fragments path, in three phases:
//   build      MessageStore::Acquire() + BuildResponse() (copies from the catalogue)
//   serialize  ByteSizeLong() + SerializeToArray() into a buffer reused across responses
//   release    MessageStore::Release(): delete, Clear() or Reset()
// reco_server --mode=arena_alias has a row group of its own, "arena_alias": arena_pool's
// store, each item's static sub-messages aliased from the catalogue rather than copied
// (ItemData::kAliased, core/response_builder.h), the same three phases.
// The fragments path (reco_server --mode=fragments, server/fragments_service.h) builds
// no message; its row group measures what that handler runs:
//   build      WriteFragmentReply() into a grpc::ByteBuffer: the server's default,
//              every item copied, the reply sized first and written once into one
//              slice (its per-thread score scratch warm, as on a serving thread)
//   serialize  nothing, always 0: the written bytes are the reply
//   release    the ByteBuffer cleared: what gRPC does once it has written the reply
// Counts come from AllocationCounter on the calling thread: they are exact, not
// sampled. Each row group runs `warmup_responses` responses first (pools fill, buffers
// grow), then the figures are averaged over `cycles` responses; the builder is
// deterministic, so at steady state every cycle makes the same counts and the
// averages are whole.
//
// What no row counts: gRPC's own work after the handler. For the message modes gRPC
// serializes into a slice it mallocs; for fragments its SerializationTraits<ByteBuffer>
// copies the reply's ByteBuffer (a new grpc_byte_buffer and slice array, the slices
// referenced, not copied). Both are outside the application's code, in every mode.
//
// Example:
//   reco::v1::RecommendRequest req;
//   req.set_text_profile(reco::v1::TEXT_PROFILE_COMPACT);
//   reco::Ledger ledger = reco::MeasureLedger(req, {});
//   ledger.ForMode(reco::MemoryMode::kArenaPool).build.allocs   // 0
//   ledger.Fragments().build.allocs                             // 2: the reply's slice and
//                                                               // gRPC's byte buffer (see the test)
#ifndef ARENA_GRPC_CORE_ALLOCATION_LEDGER_H_
#define ARENA_GRPC_CORE_ALLOCATION_LEDGER_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/allocation_counter.h"
#include "core/catalogue.h"
#include "core/message_store.h"
#include "proto/reco.pb.h"

namespace reco {

struct PhaseCost {
  double allocs = 0;
  double frees = 0;
  double bytes = 0;

  // Adds one measured cycle's counts; the average of n cycles is then Average(n).
  void Add(const AllocationCounts& c) {
    allocs += static_cast<double>(c.allocs);
    frees += static_cast<double>(c.frees);
    bytes += static_cast<double>(c.bytes);
  }
  void Average(int cycles) {
    allocs /= cycles;
    frees /= cycles;
    bytes /= cycles;
  }
};

// One row group: a memory mode, arena_alias (mode is kArenaPool, aliased true), or
// the fragments path (then `mode` means nothing).
struct ModeLedger {
  MemoryMode mode = MemoryMode::kHeap;
  bool aliased = false;
  bool fragments = false;
  PhaseCost build, serialize, release;

  // Every phase's sums of `cycles` cycles become their averages.
  void Average(int cycles) {
    build.Average(cycles);
    serialize.Average(cycles);
    release.Average(cycles);
  }
  // The row group's name in every printed form: MemoryModeName(mode),
  // kArenaAliasLedgerName or kFragmentsLedgerName.
  absl::string_view name() const;
};

// The arena_alias and fragments row groups' names, as reco_server's --mode calls them.
inline constexpr absl::string_view kArenaAliasLedgerName = "arena_alias";
inline constexpr absl::string_view kFragmentsLedgerName = "fragments";

struct Ledger {
  uint32_t items = 0;  // effective item count
  v1::TextProfile profile = v1::TEXT_PROFILE_REALISTIC;
  size_t serialized_bytes = 0;
  int cycles = 0;
  std::vector<ModeLedger> modes;  // the modes in the order asked for, arena_alias, fragments

  // The entry for `mode` (never arena_alias's); the mode must have been measured.
  const ModeLedger& ForMode(MemoryMode mode) const;
  // The arena_alias row group; it must have been measured (LedgerOptions::arena_alias).
  const ModeLedger& ArenaAlias() const;
  // The fragments row group; it must have been measured (LedgerOptions::fragments).
  const ModeLedger& Fragments() const;
};

struct LedgerOptions {
  std::vector<MemoryMode> modes = AllMemoryModes();
  bool arena_alias = false;  // also measure arena_alias, after the modes (alloc_ledger does by default)
  bool fragments = true;     // also measure the fragments path, last
  int warmup_responses = 3;
  int cycles = 8;
  MessageStoreOptions store;
  CatalogueOptions catalogue;  // what the replies are copied from
};

Ledger MeasureLedger(const v1::RecommendRequest& request, const LedgerOptions& options);

// The request alloc_ledger and reco_bench measure (user "ledger-user", seed 1). The
// seed decides how many realistic strings pass 15 bytes, so both must use this one.
v1::RecommendRequest LedgerRequest(uint32_t items, v1::TextProfile profile);

// The serialize phase: ByteSizeLong() + SerializeWithCachedSizesToArray() into
// *buffer, which grows only when too small (no malloc once warm). Returns the size.
size_t SerializeToBuffer(const v1::RecommendResponse& response, std::string* buffer);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_ALLOCATION_LEDGER_H_
