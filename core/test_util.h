// Helpers shared by the core tests: walking a message tree.
#ifndef ARENA_GRPC_CORE_TEST_UTIL_H_
#define ARENA_GRPC_CORE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "google/protobuf/message.h"

namespace reco::testing {

// Every message in the tree rooted at `root`, root first (uses reflection).
std::vector<const google::protobuf::Message*> AllMessages(const google::protobuf::Message& root);

// Paths (e.g. "items[3].price") of messages in the tree whose GetArena() is not `arena`.
std::vector<std::string> MessagesNotOnArena(const google::protobuf::Message& root,
                                            const google::protobuf::Arena* arena);

// How many string values in the tree are longer than `bytes`.
int StringsLongerThan(const google::protobuf::Message& root, size_t bytes);

}  // namespace reco::testing

#endif  // ARENA_GRPC_CORE_TEST_UTIL_H_
