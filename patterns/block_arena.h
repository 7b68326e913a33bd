// SPDX-License-Identifier: Apache-2.0
// BlockArena: a protobuf Arena with an initial block of its own, kept across Reset().
//
// Reset() frees every block the arena grew beyond the initial one and keeps the
// initial block, so a BlockArena reused for records that fit in it allocates nothing
// after the first (unless a record has strings over 15 bytes: protobuf 3.21 keeps
// their characters on the heap). The pooled-arena allocator and ArenaBatch are built
// on it.
//
// Example:
//   BlockArena scratch(/*block_bytes=*/64 * 1024);
//   auto* r = google::protobuf::Arena::CreateMessage<v1::FeedResponse>(scratch.get());
//   FillAndUse(r);
//   scratch.get()->Reset();   // r is dead; the 64 KiB block is kept for the next record
//
// The trap (protobuf 3.21): the initial block belongs to the thread that built the
// arena or last called Reset(). Another thread allocating on it gets fresh heap
// blocks instead. Reset() on an empty arena costs nothing and hands the block to the
// calling thread: do that on the thread that is about to build (BindToThisThread).
//
// Thread-safety: as protobuf's Arena -- allocation from any thread, Reset() and
// destruction by one thread when no other uses the arena.
#ifndef ARENA_GRPC_PATTERNS_BLOCK_ARENA_H_
#define ARENA_GRPC_PATTERNS_BLOCK_ARENA_H_

#include <cstddef>
#include <memory>

#include "google/protobuf/arena.h"

namespace reco::patterns {

class BlockArena {
 public:
  // block_bytes: at least a few hundred (protobuf keeps its bookkeeping in the block).
  explicit BlockArena(size_t block_bytes)
      : block_bytes_(block_bytes), block_(new char[block_bytes]), arena_(Options(block_.get(), block_bytes)) {}

  google::protobuf::Arena* get() { return &arena_; }
  const google::protobuf::Arena* get() const { return &arena_; }
  size_t block_bytes() const { return block_bytes_; }

  // Hands the initial block to the calling thread. Only on an empty arena (just built
  // or just Reset()): it is a Reset(), and kills whatever is on the arena.
  void BindToThisThread() { arena_.Reset(); }

  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

 private:
  static google::protobuf::ArenaOptions Options(char* block, size_t bytes) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = bytes;
    return options;
  }

  const size_t block_bytes_;
  std::unique_ptr<char[]> block_;  // declared before arena_: must outlive it
  google::protobuf::Arena arena_;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_BLOCK_ARENA_H_
