#include "cli/build_info.h"

#include "absl/strings/str_cat.h"

// RECO_VERSION, RECO_BUILD_TYPE and RECO_SANITIZER come from cli/CMakeLists.txt;
// the commit from the file cmake/GitCommit.cmake writes into the build tree.
namespace reco::build_info_internal {
extern const char kGitCommit[];
}  // namespace reco::build_info_internal

namespace reco {

const BuildInfo& GetBuildInfo() {
  // NDEBUG is read here, in a file compiled with the same flags as every binary of the
  // build: absl's own default ("Debug build (NDEBUG not #defined)") reads the flag of
  // Debian's abseil build instead, which is not ours.
#ifdef NDEBUG
  constexpr bool kNdebug = true;
#else
  constexpr bool kNdebug = false;
#endif
  static const BuildInfo info{RECO_VERSION, build_info_internal::kGitCommit, RECO_BUILD_TYPE, kNdebug, RECO_SANITIZER};
  return info;
}

std::string VersionLine(absl::string_view program) {
  const BuildInfo& b = GetBuildInfo();
  std::string line = absl::StrCat(program, " ", b.version, " (commit ", b.commit, ", ", b.build_type, " build, ",
                                  b.ndebug ? "NDEBUG defined" : "assertions on");
  if (*b.sanitizer != '\0') absl::StrAppend(&line, ", ", b.sanitizer, " sanitizer");
  return absl::StrCat(line, ")");
}

}  // namespace reco
