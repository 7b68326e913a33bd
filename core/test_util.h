// Helpers shared by the core tests: walking a message tree.
#ifndef ARENA_GRPC_CORE_TEST_UTIL_H_
#define ARENA_GRPC_CORE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "google/protobuf/arena.h"

#include "google/protobuf/message.h"

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
  RoomyArena() : block_(64 * 1024), arena_(Options(&block_)) {}
  google::protobuf::Arena* get() { return &arena_; }

 private:
  static google::protobuf::ArenaOptions Options(std::vector<char>* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block->data();
    options.initial_block_size = block->size();
    return options;
  }
  std::vector<char> block_;  // declared before arena_: must outlive it
  google::protobuf::Arena arena_;
};

}  // namespace reco::testing

#endif  // ARENA_GRPC_CORE_TEST_UTIL_H_
