// Helpers shared by the tests: walking a message tree, a roomy arena, test names.
#ifndef ARENA_GRPC_CORE_TEST_UTIL_H_
#define ARENA_GRPC_CORE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "core/message_store.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "patterns/block_arena.h"

namespace reco::testing {

// Every message in the tree rooted at `root`, root first (uses reflection).
std::vector<const google::protobuf::Message*> AllMessages(const google::protobuf::Message& root);

// Paths (e.g. "items[3].price") of messages in the tree whose GetArena() is not `arena`.
std::vector<std::string> MessagesNotOnArena(const google::protobuf::Message& root,
                                            const google::protobuf::Arena* arena);

// How many string values in the tree are longer than `bytes`.
int StringsLongerThan(const google::protobuf::Message& root, size_t bytes);

// An Arena whose 64 KiB initial block holds everything a test puts on it: any malloc
// counted comes from the code under test, never from the arena growing.
class RoomyArena {
 public:
  RoomyArena() : arena_(64 * 1024) {}
  google::protobuf::Arena* get() { return arena_.get(); }

 private:
  patterns::BlockArena arena_;
};

// The name of a MemoryMode test parameter ("heap", "arena_pool", ...), for
// INSTANTIATE_TEST_SUITE_P(..., ::testing::ValuesIn(AllMemoryModes()), ModeParamName).
std::string ModeParamName(const ::testing::TestParamInfo<MemoryMode>& info);

}  // namespace reco::testing

#endif  // ARENA_GRPC_CORE_TEST_UTIL_H_
