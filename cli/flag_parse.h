// The command line of every reco binary: absl flags, with the behaviour of released
// software. absl::ParseCommandLine alone exits 1 on a mistyped flag and prints the
// build machine's paths in --help; ParseFlagsOrExit2 fixes both and adds --version.
//
//   int main(int argc, char** argv) {
//     std::vector<char*> rest = reco::ParseFlagsOrExit2(argc, argv, "reco_probe",
//         "Exits 0 when a gRPC server's health service answers SERVING.");
//     ...
//   }
//   // reco_probe --bogus          -> "reco_probe: Unknown command line flag 'bogus' (see --help)", exit 2
//   // reco_probe --deadline=abc   -> "reco_probe: Illegal value 'abc' specified for flag 'deadline'; ...", exit 2
//   // reco_probe --version        -> "reco_probe 0.4.0 (commit 929b18c, RelWithDebInfo build, ...)", exit 0
//
// Thread-safety: call from main before any other thread reads a flag (as absl's parser).
#ifndef ARENA_GRPC_CLI_FLAG_PARSE_H_
#define ARENA_GRPC_CLI_FLAG_PARSE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace reco {

// Checks argv as absl::ParseCommandLine reads it (--flag=value, --flag value, -flag,
// --noflag and --flag for bools, "--" ending the flags, positional arguments anywhere)
// without changing any flag: OK, or InvalidArgument with absl's own message naming
// the first bad flag -- unknown, a value that does not parse, a missing value, a
// negative form of a non-bool. absl's --help/--version family counts as known.
absl::Status CheckFlags(int argc, char** argv);

// Sets the usage message and the --version line (cli/build_info.h), makes --help name
// flag files by their path in the source tree, then parses: a bad flag prints
// "PROGRAM: MESSAGE (see --help)" on stderr and exits 2; --help (and absl's other
// help flags) and --version print on stdout and exit 0. Returns the positional
// arguments, argv[0] first, as absl::ParseCommandLine does.
std::vector<char*> ParseFlagsOrExit2(int argc, char** argv, absl::string_view program, absl::string_view usage);

// --help by purpose: groups of flags in the order a reader needs them, each flag with
// its help and default; the flags no group names follow under "Other flags", and
// absl's own stay in --helpfull.
struct FlagGroup {
  const char* title;               // "Targets and the call"
  std::vector<const char*> flags;  // names without "--", in order
};
// As above, but a plain --help prints `usage` and then `groups` (see FlagGroup).
std::vector<char*> ParseFlagsOrExit2(int argc, char** argv, absl::string_view program, absl::string_view usage,
                                     const std::vector<FlagGroup>& groups);
// The grouped help text (what --help prints after the usage message): exposed for tests.
std::string GroupedFlagsHelp(const std::vector<FlagGroup>& groups);

// The exit status of a bad command line, for every reco binary.
inline constexpr int kBadFlagsExit = 2;

}  // namespace reco

#endif  // ARENA_GRPC_CLI_FLAG_PARSE_H_
