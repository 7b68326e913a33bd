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

nlohmann::json PhaseJson(const PhaseCost& c) { return {{"allocs", c.allocs}, {"frees", c.frees}, {"bytes", c.bytes}}; }

nlohmann::json ModesJson(const std::vector<ModeLedger>& modes) {
  nlohmann::json json = nlohmann::json::object();
  for (const ModeLedger& m : modes) {
    json[std::string(m.name())] = {
        {"build", PhaseJson(m.build)}, {"serialize", PhaseJson(m.serialize)}, {"release", PhaseJson(m.release)}};
  }
  return json;
}

void AppendRows(const std::vector<ModeLedger>& modes, std::string* out) {
  absl::StrAppendFormat(out, "%-11s %-10s %10s %10s %12s\n", "mode", "phase", "allocs", "frees", "bytes");
  for (const ModeLedger& m : modes) {
    const std::pair<const char*, const PhaseCost*> phases[] = {
        {"build", &m.build}, {"serialize", &m.serialize}, {"release", &m.release}};
    for (const auto& [name, cost] : phases) {
      absl::StrAppendFormat(out, "%-11s %-10s %10s %10s %12s\n", m.name(), name, Number(cost->allocs),
                            Number(cost->frees), Number(cost->bytes));
    }
  }
}

}  // namespace

std::string LedgerToJson(const Ledger& ledger) {
  nlohmann::json modes = ModesJson(ledger.modes);
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
  AppendRows(ledger.modes, &out);
  return out;
}

std::string MessageLedgerToJson(const MessageLedger& ledger, const DynamicOverhead& overhead) {
  const MessageShape& s = ledger.shape;
  nlohmann::json doc = {{"message", ledger.type_name},
                        {"dynamic", ledger.dynamic},
                        {"serialized_bytes", ledger.serialized_bytes},
                        {"cycles", ledger.cycles},
                        {"malloc", AllocationCounter::MallocName()},
                        {"shape",
                         {{"strings", s.strings},
                          {"long_strings", s.long_strings},
                          {"small_string_bytes", SmallStringBytes()},
                          {"sub_messages", s.sub_messages},
                          {"repeated_fields", s.repeated_fields},
                          {"repeated_elements", s.repeated_elements}}},
                        {"modes", ModesJson(ledger.modes)}};
  if (ledger.dynamic) {
    doc["dynamic_overhead"] = {
        {"serialize", {{"allocs", overhead.serialize_allocs}, {"frees", overhead.serialize_frees}}},
        {"reuse_build", {{"allocs", overhead.reuse_build_allocs}}},
        {"reuse_release", {{"allocs", overhead.reuse_release_allocs}, {"frees", overhead.reuse_release_frees}}}};
  }
  return doc.dump(2);
}

std::string MessageLedgerToTable(const MessageLedger& ledger, const DynamicOverhead& overhead) {
  const MessageShape& s = ledger.shape;
  std::string out = absl::StrFormat(
      "One steady-state %s (%s), %zu bytes serialized; malloc: %s; averaged over %d responses\n"
      "Shape: %u strings, %u longer than %zu bytes (a malloc each, arena or not); %u sub-messages; "
      "%u repeated fields holding %u elements\n\n",
      ledger.type_name, ledger.dynamic ? "dynamic messages" : "generated code", ledger.serialized_bytes,
      AllocationCounter::MallocName(), ledger.cycles, s.strings, s.long_strings, SmallStringBytes(), s.sub_messages,
      s.repeated_fields, s.repeated_elements);
  AppendRows(ledger.modes, &out);
  if (!ledger.dynamic) return out;
  absl::StrAppendFormat(
      &out,
      "\nDynamic messages vs generated code for this shape (measured; core/message_ledger.h):\n"
      "  heap, arena_pool: the same allocs and frees\n"
      "  serialize: +%u allocs, +%u frees in every mode (protobuf's reflection serializer; generated code: 0)\n"
      "  reuse: build +%u allocs, release +%u allocs +%u frees (DynamicMessage::Clear)\n"
      "  bytes: a dynamic message is bigger than the generated class, so byte counts are upper bounds\n"
      "         and arena (default blocks) may count a block more\n",
      overhead.serialize_allocs, overhead.serialize_frees, overhead.reuse_build_allocs, overhead.reuse_release_allocs,
      overhead.reuse_release_frees);
  return out;
}

}  // namespace reco
