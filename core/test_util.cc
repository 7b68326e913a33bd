#include "core/test_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"

namespace reco::testing {

std::string ModeParamName(const ::testing::TestParamInfo<MemoryMode>& info) {
  return std::string(MemoryModeName(info.param));
}

namespace {

// The folders FreshTestFolder made in this process, removed when it exits: a suite
// run thousands of times must not leave thousands of folders in /tmp.
std::vector<std::filesystem::path>& MadeFolders() {
  static auto* folders = new std::vector<std::filesystem::path>;
  return *folders;
}

void RemoveMadeFolders() {
  for (const std::filesystem::path& folder : MadeFolders()) {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
}

}  // namespace

std::string FreshTestFolder() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path folder = std::filesystem::path(::testing::TempDir()) /
                                 absl::StrCat(test->test_suite_name(), ".", test->name(), ".", getpid());
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  if (MadeFolders().empty()) std::atexit(RemoveMadeFolders);
  MadeFolders().push_back(folder);
  return folder.string();
}

void WriteTestFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

}  // namespace reco::testing
