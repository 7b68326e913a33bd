// alloc_ledger: prints, for each memory mode, arena_alias and the fragments path, the
// allocations, frees and bytes of one steady-state response in three phases (build,
// serialize, release). With --proto or --protoset, the same for the user's own message, built as
// dynamic messages from a sample reply (core/message_ledger.h).
//
//   alloc_ledger [--items 200] [--profile realistic|compact] [--modes heap,arena,fragments] [--format text|json]
//   alloc_ledger --proto f.proto [--import_path DIR]... --message pkg.Type --data_file reply.json [--modes ...]
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/flag_parse.h"
#include "core/allocation_ledger.h"
#include "core/message_ledger.h"
#include "core/request.h"
#include "schema/json_message.h"
#include "schema/proto_schema.h"
#include "tools/ledger_format.h"

ABSL_FLAG(int64_t, items, 200, "Items in the response, 0 to 10000 (0 means the service default, 200).");
ABSL_FLAG(std::string, profile, "realistic",
          "Text profile: 'realistic' (strings of 20 to 200 bytes) or 'compact' (every string <= 15 bytes).");
ABSL_FLAG(std::string, modes, "heap,reuse,arena,arena_pool,arena_alias,fragments",
          "Comma-separated memory modes to measure, 'arena_alias' (arena_pool with the catalogue's sub-messages "
          "aliased, after the modes) and 'fragments' for the spliced reply (printed last).");
ABSL_FLAG(int32_t, cycles, 8, "Responses to average over, after the warm-up (1 to 100000).");
ABSL_FLAG(int32_t, warmup_responses, 3,
          "Responses to make before measuring, so pools and buffers are warm (0 to 1000).");
ABSL_FLAG(int64_t, initial_block_bytes, 512 * 1024, "arena_pool: the size of each arena's reused initial block.");
ABSL_FLAG(std::string, format, "text", "Output: 'text' (a table for terminals) or 'json' (for scripts).");
ABSL_FLAG(std::vector<std::string>, proto, {}, "Your .proto file(s), comma-separated: measure your own message.");
ABSL_FLAG(std::string, protoset, "",
          "A FileDescriptorSet (protoc --include_imports --descriptor_set_out) instead of --proto.");
ABSL_FLAG(std::vector<std::string>, import_path, {}, "Where --proto's imports are found; comma-separated or repeated.");
ABSL_FLAG(std::string, message, "", "With --proto/--protoset: the message to measure, e.g. feed.v1.FeedResponse.");
ABSL_FLAG(std::string, data_file, "", "With --message: one sample of it as JSON (one reply).");

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "alloc_ledger: %s (see --help)\n", message.c_str());
  return 2;
}

// Whether --flag was on the command line (absl 20220623 keeps that query private).
int g_argc = 0;
char** g_argv = nullptr;
bool Given(absl::string_view flag) {
  for (int i = 1; i < g_argc; ++i) {
    absl::string_view arg = g_argv[i];
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) continue;
    if (arg == flag || absl::StartsWith(arg, absl::StrCat(flag, "="))) return true;
  }
  return false;
}

// absl keeps only the last of a repeated flag: --import_path may be given many times.
std::vector<std::string> AllImportPaths(int argc, char** argv) {
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    std::string value;
    if (absl::ConsumePrefix(&arg, "--import_path=")) {
      value = std::string(arg);
    } else if (arg == "--import_path" && i + 1 < argc) {
      value = argv[++i];
    } else {
      continue;
    }
    for (absl::string_view dir : absl::StrSplit(value, ',', absl::SkipEmpty())) paths.emplace_back(dir);
  }
  return paths;
}

// The user's message: --proto/--protoset, --message, --data_file. Exit status as main's.
int RunUserMessage(const std::vector<std::string>& import_paths, const reco::MessageLedgerOptions& options,
                   const std::string& format) {
  const std::vector<std::string> protos = absl::GetFlag(FLAGS_proto);
  const std::string protoset = absl::GetFlag(FLAGS_protoset);
  if (!protos.empty() && !protoset.empty()) return Fail("give --proto or --protoset, not both");
  for (const char* old : {"items", "profile"}) {
    if (Given(old))
      return Fail(std::string("--") + old +
                  " is about reco's own reply; with --proto/--protoset the sample is --data_file");
  }
  const std::string type_name = absl::GetFlag(FLAGS_message);
  if (type_name.empty()) return Fail("--message is required with --proto/--protoset (e.g. --message=pkg.v1.Reply)");
  const std::string data_file = absl::GetFlag(FLAGS_data_file);
  if (data_file.empty()) return Fail("--data_file is required with --message: one sample reply as JSON");

  absl::StatusOr<reco::ProtoSchema> schema =
      protoset.empty() ? reco::LoadProtoFiles(protos, import_paths) : reco::LoadProtoset(protoset);
  if (!schema.ok()) return Fail(std::string(schema.status().message()));
  const google::protobuf::Descriptor* type = schema->FindMessage(type_name);
  if (type == nullptr) {
    std::vector<std::string> names = schema->Messages();
    if (names.size() > 8) names.resize(8);
    return Fail("--message " + type_name + " is not in the schema; it has " + absl::StrJoin(names, ", "));
  }
  std::ifstream in(data_file);
  std::stringstream json;
  json << in.rdbuf();
  if (!in) return Fail("--data_file " + data_file + ": cannot read it");
  // The schema's prototypes are dynamic messages, never the generated classes (see
  // message_ledger.h); the parser names the field that does not fit.
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> sample =
      reco::ParseJsonMessage(schema->Prototype(type), json.str(), "--data_file " + data_file);
  if (!sample.ok()) return Fail(std::string(sample.status().message()));
  reco::MessageLedger ledger = reco::MeasureMessageLedger(**sample, options);
  const reco::DynamicOverhead overhead = reco::PredictDynamicOverhead(**sample);
  std::string out = format == "json" ? reco::MessageLedgerToJson(ledger, overhead) + "\n"
                                     : reco::MessageLedgerToTable(ledger, overhead);
  std::fputs(out.c_str(), stdout);
  return 0;
}

// --modes, --cycles, --warmup_responses and --initial_block_bytes into `options`: ""
// when they are good, else what is wrong with which flag.
std::string LedgerOptionsFromFlags(reco::LedgerOptions* options) {
  options->modes.clear();
  options->fragments = false;
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_modes), ',')) {
    reco::MemoryMode mode;
    if (name == reco::kFragmentsLedgerName) {
      options->fragments = true;
    } else if (name == reco::kArenaAliasLedgerName) {
      options->arena_alias = true;
    } else if (reco::ParseMemoryMode(name, &mode)) {
      options->modes.push_back(mode);
    } else {
      return "--modes: unknown mode '" + std::string(name) +
             "'; the modes are heap, reuse, arena, arena_pool, arena_alias, fragments";
    }
  }
  options->cycles = absl::GetFlag(FLAGS_cycles);
  if (options->cycles < 1 || options->cycles > 100000) {
    return "--cycles must be between 1 and 100000, got " + std::to_string(options->cycles);
  }
  options->warmup_responses = absl::GetFlag(FLAGS_warmup_responses);
  if (options->warmup_responses < 0 || options->warmup_responses > 1000) {
    return "--warmup_responses must be between 0 and 1000, got " + std::to_string(options->warmup_responses);
  }
  const int64_t block = absl::GetFlag(FLAGS_initial_block_bytes);
  if (block < 1024 || block > (int64_t{1} << 30)) {
    return "--initial_block_bytes must be between 1024 and 1073741824, got " + std::to_string(block);
  }
  options->store.initial_block_bytes = static_cast<size_t>(block);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  const char* const usage =
      "Prints the exact allocations, frees and bytes of one steady-state response per memory mode, for\n"
      "arena_alias (arena_pool, the catalogue's sub-messages aliased) and for the fragments path (no\n"
      "message: the reply spliced from pre-serialized items).\n"
      "Usage: alloc_ledger [--items N] [--profile realistic|compact] [--modes LIST] [--format text|json]\n"
      "       alloc_ledger --proto F.proto|--protoset F.pb --message pkg.Type --data_file reply.json [--modes LIST]";
  g_argc = argc;
  g_argv = argv;
  std::vector<char*> rest = reco::ParseFlagsOrExit2(argc, argv, "alloc_ledger", usage);
  if (rest.size() > 1) return Fail(std::string("unexpected argument '") + rest[1] + "'");

  const bool user_message = !absl::GetFlag(FLAGS_proto).empty() || !absl::GetFlag(FLAGS_protoset).empty();
  if (!user_message) {
    for (const char* flag : {"message", "data_file", "import_path"}) {
      if (Given(flag)) return Fail(std::string("--") + flag + " needs --proto or --protoset");
    }
  }
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
  if (const std::string bad = LedgerOptionsFromFlags(&options); !bad.empty()) return Fail(bad);
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") {
    return Fail("--format must be 'text' or 'json', got '" + format + "'");
  }

  if (user_message) {
    if (options.fragments && Given("modes")) {
      return Fail("--modes: 'fragments' is reco's own spliced reply, not for --proto/--protoset");
    }
    if (options.arena_alias && Given("modes")) {
      return Fail("--modes: 'arena_alias' aliases reco's catalogue, not for --proto/--protoset");
    }
    reco::MessageLedgerOptions user;
    user.modes = options.modes;
    user.cycles = options.cycles;
    user.warmup_responses = options.warmup_responses;
    user.initial_block_bytes = options.store.initial_block_bytes;
    return RunUserMessage(AllImportPaths(argc, argv), user, format);
  }
  const reco::v1::RecommendRequest request = reco::LedgerRequest(static_cast<uint32_t>(items), profile);
  reco::Ledger ledger = reco::MeasureLedger(request, options);
  std::string out = format == "json" ? reco::LedgerToJson(ledger) + "\n" : reco::LedgerToTable(ledger);
  std::fputs(out.c_str(), stdout);
  return 0;
}
