// What this binary is: the project's version (CMake's project(VERSION)), the git
// commit it was built from and how it was built. Every main prints it for --version
// (cli/flag_parse.h installs it); a bug report that quotes it names the exact code.
//
//   reco::VersionLine("reco_load")
//   // "reco_load 0.4.0 (commit 929b18c, RelWithDebInfo build, NDEBUG defined)"
//   // "reco_load 0.4.0 (commit 929b18c-dirty, Debug build, assertions on)" from a tree
//   // with uncommitted changes to tracked files; "commit unknown" outside git.
//
// The commit is rewritten at every build by cmake/GitCommit.cmake, but only when it
// changed, so a new commit relinks the binaries and an unchanged one rebuilds nothing.
//
// Thread-safety: constants; safe from any thread.
#ifndef ARENA_GRPC_CLI_BUILD_INFO_H_
#define ARENA_GRPC_CLI_BUILD_INFO_H_

#include <string>

#include "absl/strings/string_view.h"

namespace reco {

struct BuildInfo {
  const char* version;     // "0.4.0"
  const char* commit;      // short hash, "-dirty" appended for a changed tree; "unknown" outside git
  const char* build_type;  // CMake's configuration: "RelWithDebInfo", "Debug", ...
  bool ndebug;             // NDEBUG defined: assert() compiled out
  const char* sanitizer;   // "address", "thread" or "" (RECO_SANITIZE)
};

const BuildInfo& GetBuildInfo();

// "PROGRAM VERSION (commit C, TYPE build, NDEBUG defined|assertions on[, SAN sanitizer])"
std::string VersionLine(absl::string_view program);

}  // namespace reco

#endif  // ARENA_GRPC_CLI_BUILD_INFO_H_
