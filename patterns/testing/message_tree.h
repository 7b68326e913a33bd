// SPDX-License-Identifier: Apache-2.0
// Looking at a message tree in a test: where its messages live, how many long strings
// it holds. Reflection only, so it works for any message.
//
// Example:
//   EXPECT_TRUE(MessagesNotOnArena(*response, response->GetArena()).empty());
//   EXPECT_EQ(StringsLongerThan(*response, 15), 0);   // nothing left on the heap
//
// Thread-safety: reads the message; nobody may write it meanwhile.
#ifndef ARENA_GRPC_PATTERNS_TESTING_MESSAGE_TREE_H_
#define ARENA_GRPC_PATTERNS_TESTING_MESSAGE_TREE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "google/protobuf/arena.h"
#include "google/protobuf/message.h"

namespace reco::patterns::testing {

// Every message in the tree rooted at `root`, root first.
std::vector<const google::protobuf::Message*> AllMessages(const google::protobuf::Message& root);

// Paths (e.g. "FeedResponse.posts[3].author") of messages in the tree whose
// GetArena() is not `arena`.
std::vector<std::string> MessagesNotOnArena(const google::protobuf::Message& root,
                                            const google::protobuf::Arena* arena);

// How many string values in the tree are longer than `bytes`.
int StringsLongerThan(const google::protobuf::Message& root, size_t bytes);

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_MESSAGE_TREE_H_
