// The stats library as a user links it: this executable has no counting malloc of
// its own (no reco_core) and gets it, and the service, from libreco_server_stats.so.
// It proves that the .so's malloc family comes before libc's in symbol lookup order
// when linked the documented way, and that it then counts what the in-process test
// counts.
#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "server_stats.h"
#include "testing/feed_test_service.h"

namespace reco {
namespace {

// Where a symbol resolves for everyone (RTLD_DEFAULT): the file that defines it.
std::string LibraryOf(const char* symbol) {
  Dl_info info;
  void* address = dlsym(RTLD_DEFAULT, symbol);
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

TEST(SharedLibraryTest, TheLibrarysMallocAndNewComeFirst) {
  for (const char* symbol : {"malloc", "free", "calloc", "realloc", "posix_memalign", "_Znwm", "_ZdlPv"}) {
    EXPECT_NE(LibraryOf(symbol).find("libreco_server_stats.so"), std::string::npos)
        << symbol << " resolves to " << LibraryOf(symbol);
  }
  EXPECT_TRUE(AllocationCounter::Interposing());
  const AllocationCounts before = AllocationCounter::ThisThread();
  stats_testing::AllocateBlocks(3);
  const AllocationCounts used = AllocationCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 3u);
  EXPECT_EQ(used.frees, 3u);
}

// A malloc preloaded ahead of the library takes every call: the snapshot must then not
// report zero allocations, and EnableServerStats says why on stderr. Run in a child so
// that the preload applies.
TEST(SharedLibraryTest, AMallocPreloadedAheadLeavesProcessAllocationsUnset) {
  if (getenv("STATS_TEST_CHILD") != nullptr) GTEST_SKIP() << "the child's own run";
  // Debian 12's libtcmalloc-minimal4 (FACTS.md); ld.so ignores a missing preload, so look first.
  const char* tcmalloc = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4";
  if (access(tcmalloc, R_OK) != 0) GTEST_SKIP() << tcmalloc << " not installed";
  std::string self = program_invocation_name;
  const std::string err = self + "." + std::to_string(getpid()) + ".stderr";
  std::string command = "STATS_TEST_CHILD=1 LD_PRELOAD=" + std::string(tcmalloc) + " " + self +
                        " --gtest_filter=SharedLibraryTest.ReportsWhenNotInterposing 2>" + err;
  EXPECT_EQ(system(command.c_str()), 0) << command;
  std::ifstream in(err);
  const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(err.c_str());
  EXPECT_NE(said.find("reco_server_stats: allocations not counted: the program or an LD_PRELOAD defines malloc"),
            std::string::npos)
      << "the child's stderr: " << said;
  EXPECT_NE(said.find("(malloc in use: tcmalloc)"), std::string::npos) << said;
}

// Run by the test above, under LD_PRELOAD of another malloc.
TEST(SharedLibraryTest, ReportsWhenNotInterposing) {
  if (getenv("STATS_TEST_CHILD") == nullptr)
    GTEST_SKIP() << "run by AMallocPreloadedAheadLeavesProcessAllocationsUnset";
  EXPECT_FALSE(AllocationCounter::Interposing());
  stats_testing::FeedTestService service(/*measure_build=*/false);
  stats_testing::RunningServer s =
      stats_testing::StartFeedServer(&service, [](grpc::ServerBuilder& b) { EnableServerStats(b, "heap"); });
  ASSERT_NE(s.server, nullptr);
  v1::StatsSnapshot snapshot;
  ASSERT_TRUE(stats_testing::GetStats(s.channel.get(), false, &snapshot).ok());
  EXPECT_FALSE(snapshot.has_process_allocations());
  EXPECT_EQ(snapshot.malloc(), "tcmalloc");
}

TEST(SharedLibraryTest, CountsEveryRpcAndTheBuildPhaseExactly) {
  stats_testing::FeedTestService service(/*measure_build=*/true);
  stats_testing::RunningServer s =
      stats_testing::StartFeedServer(&service, [](grpc::ServerBuilder& b) { EnableServerStats(b, "heap"); });
  ASSERT_NE(s.server, nullptr);
  stats_testing::MeasuredWindow w = stats_testing::MeasureCalls(s.channel.get(), /*ok=*/20, /*failing=*/3, 50);
  stats_testing::ExpectExactCounts(w, 20, 3, 50);
  EXPECT_EQ(w.after.source(), "reco_server_stats");
  EXPECT_EQ(w.after.mode(), "heap");
}

}  // namespace
}  // namespace reco
