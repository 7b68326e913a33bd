// SPDX-License-Identifier: Apache-2.0
// ArenaMessageAllocator: gives every unary callback RPC its own protobuf Arena.
//
// Without a MessageAllocator, gRPC 1.51 puts a callback method's request and response
// in its own per-call memory, with no protobuf Arena: every sub-message and string the
// handler creates is a separate heap allocation. Installing this allocator makes gRPC
// ask it for the two messages instead. Each RPC gets a fresh Arena, held inside the
// MessageHolder gRPC keeps (holder and Arena object: one malloc), with the request and
// the response created on it. When the RPC is done gRPC calls Release(), which frees
// the whole tree in one go (the arena's blocks, plus any string longer than 15 bytes:
// protobuf 3.21 keeps string payloads on the heap even on an arena).
//
// Why the holder is not itself on the arena: then Release() must free the memory it
// is running in, and read nothing of *this afterwards. GCC 12 -O2 compiled
// `delete arena_;` (arena_ a const member) to re-read arena_ from the holder AFTER
// ~Arena had freed it: a crash once that block was large enough to be unmapped.
// `delete this` with the Arena as a member is the plain, well-defined idiom and costs
// the same single malloc.
//
// Install (the allocator must outlive the server):
//   class FeedImpl final : public v1::Feed::CallbackService { /* handlers */ };
//   ArenaMessageAllocator<v1::FeedRequest, v1::FeedResponse> allocator;
//   FeedImpl service;
//   service.SetMessageAllocatorFor_GetFeed(&allocator);   // before BuildAndStart()
//
// In the handler, build into `response` as usual (mutable_*, add_*): everything lands
// on response->GetArena(). Never hand a pointer into the request or response to code
// that runs after Finish(): it dies with the arena in Release().
//
// Only unary callback methods accept an allocator (gRPC's API, not ours).
// Thread-safety: AllocateMessages() may be called from any thread at once (it only
// touches atomics); each holder is used by one RPC. Every holder must be released
// before the allocator is destroyed (shut the server down first).
#ifndef ARENA_GRPC_PATTERNS_ARENA_MESSAGE_ALLOCATOR_H_
#define ARENA_GRPC_PATTERNS_ARENA_MESSAGE_ALLOCATOR_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "google/protobuf/arena.h"
#include "grpcpp/support/message_allocator.h"

namespace reco::patterns {

template <typename Request, typename Response>
class ArenaMessageAllocator final : public grpc::MessageAllocator<Request, Response> {
 public:
  // `options` tunes each RPC's arena. It must not name an initial_block: concurrent
  // RPCs would share it. Setup cost per RPC, before the handler runs: 2 mallocs, the
  // holder (Arena inside) and the arena's first block. Then the handler's building
  // grows the arena: with the defaults (first block 256 bytes, doubling to 8 KiB) a
  // large response takes a block per 8 KiB; a start_block_size as big as your
  // typical response makes it one. arena_message_allocator_test.cc asserts both
  // counts (HolderAndArenaShareOneMalloc, FirstBlockSizedForTheResponseMakesOneBlock).
  explicit ArenaMessageAllocator(google::protobuf::ArenaOptions options = {}) : options_(options) {
    if (options_.initial_block != nullptr) {  // a programming error, in every build type
      std::fprintf(stderr,
                   "ArenaMessageAllocator: ArenaOptions.initial_block must be null: "
                   "one block cannot serve concurrent RPCs\n");
      std::abort();
    }
  }

  // The holder owns the RPC's Arena as a member: one malloc for both.
  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    explicit Holder(ArenaMessageAllocator* owner) : owner_(owner), arena_(owner->options_) {
      this->set_request(google::protobuf::Arena::CreateMessage<Request>(&arena_));
      this->set_response(google::protobuf::Arena::CreateMessage<Response>(&arena_));
    }
    // gRPC calls this once the RPC is done: frees the arena's blocks (and the long
    // strings on it) and the holder.
    void Release() override {
      owner_->released_.fetch_add(1, std::memory_order_relaxed);
      owner_->space_allocated_.fetch_add(arena_.SpaceAllocated(), std::memory_order_relaxed);
      owner_->space_used_.fetch_add(arena_.SpaceUsed(), std::memory_order_relaxed);
      delete this;
    }

   private:
    ArenaMessageAllocator* const owner_;
    google::protobuf::Arena arena_;
  };

  grpc::MessageHolder<Request, Response>* AllocateMessages() override {
    allocated_.fetch_add(1, std::memory_order_relaxed);
    return new Holder(this);
  }

  // RPCs that got messages, and RPCs whose messages were freed. Equal when idle:
  // a gap that never closes is a leak.
  uint64_t allocated() const { return allocated_.load(std::memory_order_relaxed); }
  uint64_t released() const { return released_.load(std::memory_order_relaxed); }
  // Sums of Arena::SpaceAllocated() / SpaceUsed() over released RPCs: divided by
  // released(), the arena space a response takes (size start_block_size from it).
  uint64_t space_allocated() const { return space_allocated_.load(std::memory_order_relaxed); }
  uint64_t space_used() const { return space_used_.load(std::memory_order_relaxed); }

 private:
  const google::protobuf::ArenaOptions options_;
  std::atomic<uint64_t> allocated_{0};
  std::atomic<uint64_t> released_{0};
  std::atomic<uint64_t> space_allocated_{0};
  std::atomic<uint64_t> space_used_{0};
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_ARENA_MESSAGE_ALLOCATOR_H_
