#include "cli/build_info.h"

#include <string>

#include "gtest/gtest.h"

namespace reco {
namespace {

TEST(BuildInfo, VersionIsTheProjectsAndTheBuildTypeIsThisBuilds) {
  const BuildInfo& b = GetBuildInfo();
  EXPECT_STREQ(b.version, RECO_VERSION_EXPECTED);  // CMake's project(VERSION)
#ifdef NDEBUG
  EXPECT_TRUE(b.ndebug);
#else
  EXPECT_FALSE(b.ndebug);
#endif
  EXPECT_STRNE(b.build_type, "");
  EXPECT_STRNE(b.commit, "");
}

TEST(VersionLine, NamesProgramVersionCommitAndBuild) {
  const BuildInfo& b = GetBuildInfo();
  std::string expected = std::string("reco_x ") + b.version + " (commit " + b.commit + ", " + b.build_type +
                         " build, " + (b.ndebug ? "NDEBUG defined" : "assertions on");
  if (*b.sanitizer != '\0') expected += std::string(", ") + b.sanitizer + " sanitizer";
  EXPECT_EQ(VersionLine("reco_x"), expected + ")");
}

}  // namespace
}  // namespace reco
