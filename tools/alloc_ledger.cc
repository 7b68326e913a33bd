// alloc_ledger: prints, for each memory mode and the fragments path, the allocations,
// frees and bytes of one steady-state response in three phases (build, serialize,
// release).
//
//   alloc_ledger [--items 200] [--profile realistic|compact] [--modes heap,arena,fragments] [--format text|json]
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_split.h"
#include "core/allocation_ledger.h"
#include "core/request.h"
#include "tools/ledger_format.h"

ABSL_FLAG(int64_t, items, 200, "Items in the response, 0 to 10000 (0 means the service default, 200).");
ABSL_FLAG(std::string, profile, "realistic",
          "Text profile: 'realistic' (strings of 20 to 200 bytes) or 'compact' (every string <= 15 bytes).");
ABSL_FLAG(std::string, modes, "heap,reuse,arena,arena_pool,fragments",
          "Comma-separated memory modes to measure, and 'fragments' for the spliced reply (printed last).");
ABSL_FLAG(int32_t, cycles, 8, "Responses to average over, after the warm-up (1 to 100000).");
ABSL_FLAG(int32_t, warmup_responses, 3,
          "Responses to make before measuring, so pools and buffers are warm (0 to 1000).");
ABSL_FLAG(int64_t, initial_block_bytes, 512 * 1024, "arena_pool: the size of each arena's reused initial block.");
ABSL_FLAG(std::string, format, "text", "Output: 'text' (a table for terminals) or 'json' (for scripts).");

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "alloc_ledger: %s (see --help)\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Prints the exact allocations, frees and bytes of one steady-state response per memory mode\n"
      "and for the fragments path (no message: the reply spliced from pre-serialized items).\n"
      "Usage: alloc_ledger [--items N] [--profile realistic|compact] [--modes LIST] [--format text|json]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) return Fail(std::string("unexpected argument '") + rest[1] + "'");

  const int64_t items = absl::GetFlag(FLAGS_items);
  if (items < 0 || items > reco::kMaxItemCount) {
    return Fail("--items must be between 0 and " + std::to_string(reco::kMaxItemCount) + ", got " +
                std::to_string(items));
  }
  reco::v1::TextProfile profile;
  if (!reco::ParseTextProfile(absl::GetFlag(FLAGS_profile), &profile)) {
    return Fail("--profile must be 'realistic' or 'compact', got '" + absl::GetFlag(FLAGS_profile) + "'");
  }
  reco::LedgerOptions options;
  options.modes.clear();
  options.fragments = false;
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_modes), ',')) {
    reco::MemoryMode mode;
    if (name == reco::kFragmentsLedgerName) {
      options.fragments = true;
    } else if (reco::ParseMemoryMode(name, &mode)) {
      options.modes.push_back(mode);
    } else {
      return Fail("--modes: unknown mode '" + std::string(name) +
                  "'; the modes are heap, reuse, arena, arena_pool, fragments");
    }
  }
  options.cycles = absl::GetFlag(FLAGS_cycles);
  if (options.cycles < 1 || options.cycles > 100000) {
    return Fail("--cycles must be between 1 and 100000, got " + std::to_string(options.cycles));
  }
  options.warmup_responses = absl::GetFlag(FLAGS_warmup_responses);
  if (options.warmup_responses < 0 || options.warmup_responses > 1000) {
    return Fail("--warmup_responses must be between 0 and 1000, got " + std::to_string(options.warmup_responses));
  }
  const int64_t block = absl::GetFlag(FLAGS_initial_block_bytes);
  if (block < 1024 || block > (int64_t{1} << 30)) {
    return Fail("--initial_block_bytes must be between 1024 and 1073741824, got " + std::to_string(block));
  }
  options.store.initial_block_bytes = static_cast<size_t>(block);
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") {
    return Fail("--format must be 'text' or 'json', got '" + format + "'");
  }

  const reco::v1::RecommendRequest request = reco::LedgerRequest(static_cast<uint32_t>(items), profile);
  reco::Ledger ledger = reco::MeasureLedger(request, options);
  std::string out = format == "json" ? reco::LedgerToJson(ledger) + "\n" : reco::LedgerToTable(ledger);
  std::fputs(out.c_str(), stdout);
  return 0;
}
