// Measures the ledger. See allocation_ledger.h.
#include "core/allocation_ledger.h"

#include <cstdio>

#include "core/allocation_counter.h"
#include "core/response_builder.h"

namespace reco {
namespace {

void Accumulate(const AllocationCounts& c, PhaseCost* cost) {
  cost->allocs += static_cast<double>(c.allocs);
  cost->frees += static_cast<double>(c.frees);
  cost->bytes += static_cast<double>(c.bytes);
}

void Divide(PhaseCost* cost, int n) {
  cost->allocs /= n;
  cost->frees /= n;
  cost->bytes /= n;
}

}  // namespace

const ModeLedger& Ledger::ForMode(MemoryMode mode) const {
  for (const ModeLedger& m : modes) {
    if (m.mode == mode) return m;
  }
  std::fprintf(stderr, "Ledger::ForMode: %s was not measured\n", std::string(MemoryModeName(mode)).c_str());
  std::abort();
}

Ledger MeasureLedger(const v1::RecommendRequest& request, const LedgerOptions& options) {
  Ledger ledger;
  ledger.items = EffectiveItemCount(request);
  ledger.profile = request.text_profile();
  ledger.cycles = options.cycles;
  std::string buffer;  // reused across responses, as a server's write buffer would be
  const std::shared_ptr<const Catalogue> catalogue = Catalogue::Shared(options.catalogue);

  for (MemoryMode mode : options.modes) {
    std::unique_ptr<MessageStore> store = MakeMessageStore(mode, options.store);
    ModeLedger m;
    m.mode = mode;
    for (int cycle = 0; cycle < options.warmup_responses + options.cycles; ++cycle) {
      const bool measured = cycle >= options.warmup_responses;
      AllocationCounts t0 = AllocationCounter::ThisThread();
      MessageLease lease = store->Acquire();
      BuildResponse(*catalogue, request, lease.response);
      AllocationCounts t1 = AllocationCounter::ThisThread();
      size_t size = SerializeToBuffer(*lease.response, &buffer);
      AllocationCounts t2 = AllocationCounter::ThisThread();
      store->Release(lease);
      AllocationCounts t3 = AllocationCounter::ThisThread();
      ledger.serialized_bytes = size;
      if (measured) {
        Accumulate(t1 - t0, &m.build);
        Accumulate(t2 - t1, &m.serialize);
        Accumulate(t3 - t2, &m.release);
      }
    }
    Divide(&m.build, options.cycles);
    Divide(&m.serialize, options.cycles);
    Divide(&m.release, options.cycles);
    ledger.modes.push_back(m);
  }
  return ledger;
}

v1::RecommendRequest LedgerRequest(uint32_t items, v1::TextProfile profile) {
  v1::RecommendRequest request;
  request.set_user_id("ledger-user");
  request.set_item_count(items);
  request.set_text_profile(profile);
  request.set_seed(1);
  return request;
}

size_t SerializeToBuffer(const v1::RecommendResponse& response, std::string* buffer) {
  size_t size = response.ByteSizeLong();
  if (buffer->size() < size) buffer->resize(size);
  response.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(&(*buffer)[0]));
  return size;
}

}  // namespace reco
