// The test helpers' own promises: FreshTestFolder's folders do not outlive the process.
#include "core/test_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace reco::testing {
namespace {

TEST(FreshTestFolderDeathTest, IsRemovedWhenTheProcessExits) {
  // The child makes a folder, says where, and exits; its folder must be gone.
  const std::string said = absl::StrCat(::testing::TempDir(), "/fresh-folder-said.", getpid());
  EXPECT_EXIT(
      {
        const std::string folder = FreshTestFolder();
        WriteTestFile(folder + "/a-file", "x");
        WriteTestFile(said, folder);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  std::ifstream in(said);
  std::string folder;
  std::getline(in, folder);
  std::filesystem::remove(said);
  ASSERT_FALSE(folder.empty()) << "the child said no folder";
  EXPECT_FALSE(std::filesystem::exists(folder)) << folder;
}

}  // namespace
}  // namespace reco::testing
