#include "cli/flag_parse.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gtest/gtest.h"

ABSL_FLAG(int32_t, rounds, 3, "an int flag");
ABSL_FLAG(std::string, name, "x", "a string flag");
ABSL_FLAG(bool, quiet, false, "a bool flag");

namespace reco {
namespace {

// CheckFlags on a command line given as words (argv[0] is added).
absl::Status Check(std::vector<std::string> words) {
  words.insert(words.begin(), "prog");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return CheckFlags(static_cast<int>(argv.size()), argv.data());
}

std::string Message(const std::vector<std::string>& words) { return std::string(Check(words).message()); }

TEST(CheckFlags, AcceptsEveryFormAbslAccepts) {
  EXPECT_TRUE(Check({}).ok());
  EXPECT_TRUE(Check({"--rounds=5", "--rounds", "6", "-rounds=7", "-rounds", "8"}).ok());
  EXPECT_TRUE(Check({"--quiet", "--noquiet", "--quiet=false", "-quiet=true"}).ok());
  EXPECT_TRUE(Check({"--name", "--looks-like-a-flag", "--name="}).ok());      // a string's value is the next word
  EXPECT_TRUE(Check({"merge", "a.json", "--rounds=2", "b.json", "-"}).ok());  // positional anywhere
  EXPECT_TRUE(Check({"--", "--bogus", "--rounds=abc"}).ok());                 // "--" ends the flags
  EXPECT_TRUE(Check({"--help"}).ok());
  EXPECT_TRUE(Check({"--version"}).ok());
  EXPECT_TRUE(Check({"--helpfull"}).ok());
}

TEST(CheckFlags, NamesTheFirstBadFlag) {
  EXPECT_EQ(Message({"--rounds=2", "--bogus", "--nonsense"}), "Unknown command line flag 'bogus'");
  EXPECT_EQ(Message({"-bogus=1"}), "Unknown command line flag 'bogus'");
  EXPECT_EQ(Message({"--nobogus"}), "Unknown command line flag 'nobogus'");
  EXPECT_EQ(Message({"--rounds=abc"}), "Illegal value 'abc' specified for flag 'rounds'");
  EXPECT_EQ(Message({"--rounds", "abc"}), "Illegal value 'abc' specified for flag 'rounds'");
  EXPECT_EQ(Message({"--rounds="}), "Illegal value '' specified for flag 'rounds'");
  EXPECT_EQ(Message({"--rounds"}), "Missing the value for the flag 'rounds'");
  EXPECT_EQ(Message({"--norounds"}), "Negative form is not valid for the flag 'rounds'");
  EXPECT_EQ(Message({"--quiet=maybe"}), "Illegal value 'maybe' specified for flag 'quiet'");
  EXPECT_EQ(Message({"--quiet="}), "Missing the value after assignment for the boolean flag 'quiet'");
  EXPECT_EQ(Message({"--noquiet=true"}), "Negative form with assignment is not valid for the boolean flag 'quiet'");
  EXPECT_EQ(Check({"--bogus"}).code(), absl::StatusCode::kInvalidArgument);
}

TEST(CheckFlags, AFlagFileMustBeASmallReadableFile) {
  EXPECT_EQ(Message({"--flagfile=/dev/zero"}), "--flagfile=/dev/zero: not a regular file");
  EXPECT_EQ(Message({"--flagfile", "/no/such/file"}), "--flagfile=/no/such/file: no such file");
  EXPECT_EQ(Message({"--flagfile="}), "--flagfile=: no such file");
  EXPECT_EQ(Message({"--flagfile"}), "Missing the value for the flag 'flagfile'");
  const std::string file = ::testing::TempDir() + "/flags.txt";
  FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("--rounds=4\n", f);
  std::fclose(f);
  EXPECT_TRUE(Check({"--flagfile=" + file}).ok()) << Message({"--flagfile=" + file});
  EXPECT_EQ(Message({"--flagfile=" + file + ",/dev/null"}), "--flagfile=/dev/null: not a regular file");
}

TEST(CheckFlags, ChangesNoFlag) {
  ASSERT_TRUE(Check({"--rounds=9", "--name=y", "--quiet"}).ok());
  EXPECT_FALSE(Check({"--rounds=10", "--bogus"}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_rounds), 3);
  EXPECT_EQ(absl::GetFlag(FLAGS_name), "x");
  EXPECT_FALSE(absl::GetFlag(FLAGS_quiet));
}

}  // namespace
}  // namespace reco
