#include "core/test_util.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace reco::testing {

std::string ModeParamName(const ::testing::TestParamInfo<MemoryMode>& info) {
  return std::string(MemoryModeName(info.param));
}

std::string FreshTestFolder() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path folder = std::filesystem::path(::testing::TempDir()) /
                                 absl::StrCat(test->test_suite_name(), ".", test->name(), ".", getpid());
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder.string();
}

void WriteTestFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

}  // namespace reco::testing
