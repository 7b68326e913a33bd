// SPDX-License-Identifier: Apache-2.0
// RoomyArena: an Arena whose 64 KiB initial block holds everything a test puts on it,
// so any malloc a test counts comes from the code under test, never from the arena
// growing.
//
// Example:
//   RoomyArena arena;
//   auto* post = google::protobuf::Arena::CreateMessage<feed::v1::Post>(arena.get());
//
// Thread-safety: as BlockArena (block_arena.h).
#ifndef ARENA_GRPC_PATTERNS_TESTING_TEST_ARENA_H_
#define ARENA_GRPC_PATTERNS_TESTING_TEST_ARENA_H_

#include "../block_arena.h"
#include "google/protobuf/arena.h"

namespace reco::patterns::testing {

class RoomyArena {
 public:
  RoomyArena() : arena_(64 * 1024) {}
  google::protobuf::Arena* get() { return arena_.get(); }

 private:
  BlockArena arena_;
};

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_TEST_ARENA_H_
