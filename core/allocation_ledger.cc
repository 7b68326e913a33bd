// Measures the ledger. See allocation_ledger.h.
#include "core/allocation_ledger.h"

#include <cstdio>

#include "absl/strings/str_format.h"
#include "core/allocation_counter.h"
#include "core/response_builder.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

void Accumulate(const AllocationCounts& c, PhaseCost* cost) {
  cost->allocs += static_cast<double>(c.allocs);
  cost->frees += static_cast<double>(c.frees);
  cost->bytes += static_cast<double>(c.bytes);
}

// Whole numbers print as such; a fraction means the cycles differed, which is news.
std::string Number(double v) {
  return v == static_cast<double>(static_cast<int64_t>(v)) ? absl::StrFormat("%d", static_cast<int64_t>(v))
                                                          : absl::StrFormat("%.2f", v);
}

void Divide(PhaseCost* cost, int n) {
  cost->allocs /= n;
  cost->frees /= n;
  cost->bytes /= n;
}

nlohmann::json PhaseJson(const PhaseCost& c) {
  return {{"allocs", c.allocs}, {"frees", c.frees}, {"bytes", c.bytes}};
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

  for (MemoryMode mode : options.modes) {
    std::unique_ptr<MessageStore> store = MakeMessageStore(mode, options.store);
    ModeLedger m;
    m.mode = mode;
    for (int cycle = 0; cycle < options.warmup + options.cycles; ++cycle) {
      const bool measured = cycle >= options.warmup;
      AllocationCounts t0 = AllocationCounter::ThisThread();
      MessageLease lease = store->Acquire();
      BuildResponse(request, lease.response);
      AllocationCounts t1 = AllocationCounter::ThisThread();
      size_t size = SerializeToBuffer(*lease.response, &buffer);
      AllocationCounts t2 = AllocationCounter::ThisThread();
      store->Release(lease);
      AllocationCounts t3 = AllocationCounter::ThisThread();
      ledger.serialized_bytes = size;
      if (measured) {
        Accumulate(t1 - t0, &m.build);
        Accumulate(t2 - t1, &m.serialize);
        Accumulate(t3 - t2, &m.destroy);
      }
    }
    Divide(&m.build, options.cycles);
    Divide(&m.serialize, options.cycles);
    Divide(&m.destroy, options.cycles);
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

std::string LedgerToJson(const Ledger& ledger) {
  nlohmann::json modes = nlohmann::json::object();
  for (const ModeLedger& m : ledger.modes) {
    modes[std::string(MemoryModeName(m.mode))] = {
        {"build", PhaseJson(m.build)}, {"serialize", PhaseJson(m.serialize)}, {"destroy", PhaseJson(m.destroy)}};
  }
  nlohmann::json doc = {{"items", ledger.items},
                        {"profile", std::string(TextProfileName(ledger.profile))},
                        {"serialized_bytes", ledger.serialized_bytes},
                        {"cycles", ledger.cycles},
                        {"malloc", AllocationCounter::MallocName()},
                        {"modes", modes}};
  return doc.dump(2);
}

std::string LedgerToTable(const Ledger& ledger) {
  std::string out = absl::StrFormat(
      "One steady-state response: %u items, %s text, %zu bytes serialized; malloc: %s; "
      "averaged over %d responses\n\n",
      ledger.items, TextProfileName(ledger.profile), ledger.serialized_bytes, AllocationCounter::MallocName(),
      ledger.cycles);
  absl::StrAppendFormat(&out, "%-11s %-10s %10s %10s %12s\n", "mode", "phase", "allocs", "frees", "bytes");
  for (const ModeLedger& m : ledger.modes) {
    const std::pair<const char*, const PhaseCost*> phases[] = {
        {"build", &m.build}, {"serialize", &m.serialize}, {"destroy", &m.destroy}};
    for (const auto& [name, cost] : phases) {
      absl::StrAppendFormat(&out, "%-11s %-10s %10s %10s %12s\n", MemoryModeName(m.mode), name,
                            Number(cost->allocs), Number(cost->frees), Number(cost->bytes));
    }
  }
  return out;
}

}  // namespace reco
