// AllocationLedger: the allocations, frees and bytes of one steady-state response,
// per memory mode, in three phases:
//   build      MessageStore::Acquire() + BuildResponse() (copies from the catalogue)
//   serialize  ByteSizeLong() + SerializeToArray() into a buffer reused across responses
//   release    MessageStore::Release(): delete, Clear() or Reset()
// Counts come from AllocationCounter on the calling thread: they are exact, not
// sampled. Each mode runs `warmup_responses` responses first (pools fill, buffers grow), then
// the figures are averaged over `cycles` responses; the builder is deterministic, so
// at steady state every cycle makes the same counts and the averages are whole.
//
// Example:
//   reco::v1::RecommendRequest req;
//   req.set_text_profile(reco::v1::TEXT_PROFILE_COMPACT);
//   reco::Ledger ledger = reco::MeasureLedger(req, {});
//   ledger.ForMode(reco::MemoryMode::kArenaPool).build.allocs   // 0
#ifndef ARENA_GRPC_CORE_ALLOCATION_LEDGER_H_
#define ARENA_GRPC_CORE_ALLOCATION_LEDGER_H_

#include <string>
#include <vector>

#include "core/catalogue.h"
#include "core/message_store.h"
#include "proto/reco.pb.h"

namespace reco {

struct PhaseCost {
  double allocs = 0;
  double frees = 0;
  double bytes = 0;
};

struct ModeLedger {
  MemoryMode mode;
  PhaseCost build, serialize, release;
};

struct Ledger {
  uint32_t items = 0;               // effective item count
  v1::TextProfile profile = v1::TEXT_PROFILE_REALISTIC;
  size_t serialized_bytes = 0;
  int cycles = 0;
  std::vector<ModeLedger> modes;    // in the order asked for

  // The entry for `mode`; the mode must have been measured.
  const ModeLedger& ForMode(MemoryMode mode) const;
};

struct LedgerOptions {
  std::vector<MemoryMode> modes = AllMemoryModes();
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
