// Helpers shared by the tests: walking a message tree, a roomy arena, test names,
// files written for a test.
// The first two are patterns/testing's (written once, where patterns/ needs them alone).
#ifndef ARENA_GRPC_CORE_TEST_UTIL_H_
#define ARENA_GRPC_CORE_TEST_UTIL_H_

#include <string>

#include "core/message_store.h"
#include "gtest/gtest.h"
#include "patterns/testing/message_tree.h"
#include "patterns/testing/test_arena.h"

namespace reco::testing {

// Message-tree walks and a roomy arena: patterns/testing's, under reco::testing.
// AllMessages(root), MessagesNotOnArena(root, arena), StringsLongerThan(root, bytes);
// RoomyArena's 64 KiB initial block holds everything a test puts on it, so any
// malloc counted comes from the code under test, never from the arena growing.
using patterns::testing::AllMessages;
using patterns::testing::MessagesNotOnArena;
using patterns::testing::RoomyArena;
using patterns::testing::StringsLongerThan;

// The name of a MemoryMode test parameter ("heap", "arena_pool", ...), for
// INSTANTIATE_TEST_SUITE_P(..., ::testing::ValuesIn(AllMemoryModes()), ModeParamName).
std::string ModeParamName(const ::testing::TestParamInfo<MemoryMode>& info);

// An empty folder of its own for the running test (under ::testing::TempDir(), named
// after the test and the process), made anew on each call and removed when the
// process exits normally.
std::string FreshTestFolder();
// Writes `contents` to `path` (replacing it); fails the test if it cannot.
void WriteTestFile(const std::string& path, const std::string& contents);

}  // namespace reco::testing

#endif  // ARENA_GRPC_CORE_TEST_UTIL_H_
