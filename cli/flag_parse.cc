#include "cli/flag_parse.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/internal/parse.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cli/build_info.h"

namespace reco {
namespace {

// absl handles these itself before or instead of setting a flag; a few of them are
// not registered flags in every abseil version, so they are known by name.
bool IsUsageFlag(absl::string_view name) {
  for (absl::string_view usage : {"help", "helpfull", "helpshort", "helppackage", "version", "only_check_args",
                                  "helpon", "helpmatch", "flagfile", "fromenv", "tryfromenv", "undefok"}) {
    if (name == usage) return true;
  }
  return false;
}

// A flag file absl may read: each comma-separated path names a readable regular file
// of at most 1 MiB. absl read --flagfile=/dev/zero as no flags at all (the program then
// ran on its defaults), and would read a FIFO or a huge file without end.
absl::Status CheckFlagfiles(absl::string_view paths) {
  constexpr off_t kMaxFlagfileBytes = off_t{1} << 20;
  for (absl::string_view path : absl::StrSplit(paths, ',')) {
    const std::string file(path);
    struct stat st {};
    if (file.empty() || stat(file.c_str(), &st) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("--flagfile=", file, ": no such file"));
    }
    if (!S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat("--flagfile=", file, ": not a regular file"));
    }
    if (st.st_size > kMaxFlagfileBytes) {
      return absl::InvalidArgumentError(absl::StrCat("--flagfile=", file, ": ", st.st_size, " bytes, over 1 MiB"));
    }
    if (access(file.c_str(), R_OK) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("--flagfile=", file, ": not readable"));
    }
  }
  return absl::OkStatus();
}

// Parses `value` into `flag` to see whether it is valid, then puts the old value back.
absl::Status TryValue(absl::CommandLineFlag& flag, absl::string_view value) {
  const std::string old = flag.CurrentValue();
  std::string error;
  if (!flag.ParseFrom(value, &error)) return absl::InvalidArgumentError(error);
  std::string ignored;
  flag.ParseFrom(old, &ignored);
  return absl::OkStatus();
}

// One "-name[=value]" argument at argv[*i]; may consume argv[*i + 1] as its value.
absl::Status CheckOne(int argc, char** argv, int* i) {
  absl::string_view arg = argv[*i];
  arg.remove_prefix(1);
  absl::ConsumePrefix(&arg, "-");
  const size_t eq = arg.find('=');
  const absl::string_view name = arg.substr(0, eq);
  const bool has_value = eq != absl::string_view::npos;
  const absl::string_view value = has_value ? arg.substr(eq + 1) : absl::string_view();
  if (name == "flagfile") {
    if (has_value) return CheckFlagfiles(value);
    if (*i + 1 >= argc) return absl::InvalidArgumentError("Missing the value for the flag 'flagfile'");
    return CheckFlagfiles(argv[++*i]);
  }
  if (IsUsageFlag(name) && absl::FindCommandLineFlag(name) == nullptr) return absl::OkStatus();
  absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  bool negative = false;
  if (flag == nullptr && absl::StartsWith(name, "no")) {
    flag = absl::FindCommandLineFlag(name.substr(2));
    negative = flag != nullptr;
  }
  if (flag == nullptr) return absl::InvalidArgumentError(absl::StrCat("Unknown command line flag '", name, "'"));
  if (flag->IsOfType<bool>()) {
    if (has_value && value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Missing the value after assignment for the boolean flag '", flag->Name(), "'"));
    }
    if (negative && has_value) {
      return absl::InvalidArgumentError(
          absl::StrCat("Negative form with assignment is not valid for the boolean flag '", flag->Name(), "'"));
    }
    return has_value ? TryValue(*flag, value) : absl::OkStatus();
  }
  if (negative) {
    return absl::InvalidArgumentError(absl::StrCat("Negative form is not valid for the flag '", flag->Name(), "'"));
  }
  if (has_value) return TryValue(*flag, value);
  // "--rounds 3": the next argument is the value, whatever it looks like (as absl).
  if (*i + 1 >= argc) {
    return absl::InvalidArgumentError(absl::StrCat("Missing the value for the flag '", flag->Name(), "'"));
  }
  ++*i;
  return TryValue(*flag, argv[*i]);
}

std::string SourcePath(absl::string_view file) {
  // A flag's file is its __FILE__: our files' under the source tree (RECO_SOURCE_DIR,
  // cli/CMakeLists.txt), absl's own under Debian's build tree, cut to "absl/...".
  if (!absl::ConsumePrefix(&file, RECO_SOURCE_DIR "/")) {
    const size_t absl_dir = file.rfind("absl/");
    if (absl_dir != absl::string_view::npos) file.remove_prefix(absl_dir);
  }
  // A build tree inside the source tree compiles "../../client/x.cc".
  while (absl::ConsumePrefix(&file, "/") || absl::ConsumePrefix(&file, "./") || absl::ConsumePrefix(&file, "../")) {
  }
  return std::string(file);
}

}  // namespace

absl::Status CheckFlags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;  // positional, "-" included
    if (absl::Status s = CheckOne(argc, argv, &i); !s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {

// "    --name (help); default: value;" as absl's --help writes a flag, wrapped at 100
// columns with the continuation lines indented.
std::string FlagLine(const absl::CommandLineFlag& flag) {
  constexpr size_t kWidth = 100;
  const bool quoted = !flag.IsOfType<bool>() && !flag.IsOfType<int32_t>() && !flag.IsOfType<int64_t>() &&
                      !flag.IsOfType<double>() && !flag.IsOfType<uint64_t>();
  const std::string text = absl::StrCat("--", flag.Name(), " (", flag.Help(), "); default: ", quoted ? "\"" : "",
                                        flag.DefaultValue(), quoted ? "\"" : "", ";");
  std::string out = "    ", line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && line.size() + 1 + word.size() > kWidth - 6) {
      absl::StrAppend(&out, line, "\n      ");
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : " ", word);
  }
  return absl::StrCat(out, line, "\n");
}

bool PlainHelpAsked(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") return false;
    if (arg == "--help" || arg == "-help") return true;
  }
  return false;
}

}  // namespace

std::string GroupedFlagsHelp(const std::vector<FlagGroup>& groups) {
  std::string out;
  std::set<std::string> listed;
  for (const FlagGroup& g : groups) {
    absl::StrAppend(&out, "\n  ", g.title, ":\n");
    for (const char* name : g.flags) {
      const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
      if (flag == nullptr) continue;  // not linked into this binary
      listed.insert(name);
      absl::StrAppend(&out, FlagLine(*flag));
    }
  }
  std::vector<const absl::CommandLineFlag*> other;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (listed.count(std::string(name)) || absl::StrContains(flag->Filename(), "absl/")) continue;
    other.push_back(flag);
  }
  std::sort(other.begin(), other.end(), [](auto* a, auto* b) { return a->Name() < b->Name(); });
  if (!other.empty()) absl::StrAppend(&out, "\n  Other flags:\n");
  for (const absl::CommandLineFlag* flag : other) absl::StrAppend(&out, FlagLine(*flag));
  absl::StrAppend(&out, "\n  absl's own flags (--flagfile, ...): --helpfull\n");
  return out;
}

std::vector<char*> ParseFlagsOrExit2(int argc, char** argv, absl::string_view program, absl::string_view usage,
                                     const std::vector<FlagGroup>& groups) {
  if (PlainHelpAsked(argc, argv) && CheckFlags(argc, argv).ok()) {
    std::cout << program << ": " << usage << "\n" << GroupedFlagsHelp(groups);
    std::cout.flush();
    std::exit(0);
  }
  return ParseFlagsOrExit2(argc, argv, program, usage);
}

std::vector<char*> ParseFlagsOrExit2(int argc, char** argv, absl::string_view program, absl::string_view usage) {
  absl::SetProgramUsageMessage(usage);
  absl::FlagsUsageConfig config;
  // absl appends no newline to the version string.
  config.version_string = [name = std::string(program)] { return VersionLine(name) + "\n"; };
  config.normalize_filename = SourcePath;
  // --help lists every flag of ours the binary links, wherever it is defined (absl's
  // default lists only those of a file named like the binary); absl's own stay in
  // --helpfull.
  config.contains_help_flags = [](absl::string_view file) { return !absl::StartsWith(file, "absl/"); };
  absl::SetFlagsUsageConfig(config);  // only the fields set here; a main's own stay
  if (absl::Status s = CheckFlags(argc, argv); !s.ok()) {
    std::fprintf(stderr, "%.*s: %.*s (see --help)\n", static_cast<int>(program.size()), program.data(),
                 static_cast<int>(s.message().size()), s.message().data());
    std::exit(kBadFlagsExit);
  }
  // absl::ParseCommandLine less its usage step, which exits 1 after --help in
  // abseil 20220623: help asked for and printed is a success (exit 0), as --version.
  std::vector<char*> rest = absl::flags_internal::ParseCommandLineImpl(
      argc, argv, absl::flags_internal::ArgvListAction::kRemoveParsedArgs,
      absl::flags_internal::UsageFlagsAction::kIgnoreUsage, absl::flags_internal::OnUndefinedFlag::kAbortIfUndefined);
  const int usage_exit = absl::flags_internal::HandleUsageFlags(std::cout, absl::ProgramUsageMessage());
  if (usage_exit != -1) {
    std::cout.flush();
    std::exit(0);
  }
  return rest;
}

}  // namespace reco
