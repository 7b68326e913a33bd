// See ledger_format.h.
#include "tools/ledger_format.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/allocation_counter.h"
#include "core/request.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

// Whole numbers print as such; a fraction means the cycles differed, which is news.
std::string Number(double v) {
  return v == static_cast<double>(static_cast<int64_t>(v)) ? absl::StrFormat("%d", static_cast<int64_t>(v))
                                                          : absl::StrFormat("%.2f", v);
}

nlohmann::json PhaseJson(const PhaseCost& c) {
  return {{"allocs", c.allocs}, {"frees", c.frees}, {"bytes", c.bytes}};
}

}  // namespace

std::string LedgerToJson(const Ledger& ledger) {
  nlohmann::json modes = nlohmann::json::object();
  for (const ModeLedger& m : ledger.modes) {
    modes[std::string(m.name())] = {
        {"build", PhaseJson(m.build)}, {"serialize", PhaseJson(m.serialize)}, {"release", PhaseJson(m.release)}};
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
        {"build", &m.build}, {"serialize", &m.serialize}, {"release", &m.release}};
    for (const auto& [name, cost] : phases) {
      absl::StrAppendFormat(&out, "%-11s %-10s %10s %10s %12s\n", m.name(), name,
                            Number(cost->allocs), Number(cost->frees), Number(cost->bytes));
    }
  }
  return out;
}

}  // namespace reco
