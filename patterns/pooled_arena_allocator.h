// SPDX-License-Identifier: Apache-2.0
// PooledArenaAllocator: a grpc::MessageAllocator that builds every unary callback RPC
// on a pooled protobuf Arena with a reused initial block. reco_server's `arena_pool`
// mode is this class, not a copy of it.
//
// Why: a fresh Arena per RPC (arena_message_allocator.h) still mallocs its blocks as
// the response grows (they double up to 8 KiB each) and frees them at the end.
// Here each arena owns one large initial block; Release() calls Reset(), which frees
// what the RPC put beyond the block and keeps the block for the next RPC. With a block
// as big as the response and strings of 15 bytes or less, building and releasing a
// response makes no malloc at all (proven on a real server in
// pooled_arena_allocator_test.cc). Longer strings still cost one malloc each: protobuf
// 3.21 keeps string characters on the heap even on an arena.
//
// The trap it avoids: protobuf 3.21 gives an arena's initial block to the thread that
// last called Reset(). gRPC releases a call on one thread and builds the next on
// another, so an arena reset at Release() and reused on another thread silently
// mallocs fresh blocks for the whole response. AllocateMessages() therefore resets
// the (already empty) arena once more on the thread that is about to build: free, and
// the block is that thread's.
//
// Bounded: at most max_arenas pooled arenas exist, in use plus idle, so the pool holds
// at most max_arenas * initial_block_bytes. A call that arrives while all of them are
// in use gets a plain Arena with default options, freed at its Release(), and is
// counted in stats().unpooled: no waiting, no unbounded pool.
//
// Blocks that grow (opt-in, max_block_bytes > 0): a reply larger than its arena's
// block spills into heap blocks that every Release() frees again, so large replies
// pay for fresh blocks each time. With growth on, a pooled arena whose reply
// outgrew its block gets, at that Release(), a block of the space the reply's arena
// took plus an eighth, in 64 KiB steps (at most max_block_bytes), so the next reply
// that large fits.
// Growth is refused once the pool's blocks would exceed max_pool_bytes: the pool
// then holds at most max_pool_bytes (or max_arenas * initial_block_bytes, if larger),
// whatever the replies. A grown block is kept while its arena is pooled.
//
// Install (the allocator must outlive the server):
//   PooledArenaOptions options;                 // 512 KiB blocks, at most 64 pooled arenas
//   PooledArenaAllocator<v1::FeedRequest, v1::FeedResponse> allocator(options);
//   service.SetMessageAllocatorFor_GetFeed(&allocator);   // before BuildAndStart()
//
// In the handler, build into `response` as usual: everything lands on its arena.
// Nothing that points into the request or response may outlive the RPC: at Release()
// the arena is Reset() and the next RPC builds at the same addresses.
//
// Copying it: this file needs block_arena.h and idle_pool.h beside it, protobuf and
// gRPC; nothing else of this project.
//
// Thread-safety: AllocateMessages() and a holder's Release() may run on any gRPC
// thread at once; a holder serves one RPC at a time. Every holder must be released
// before the allocator is destroyed (shut the server down first).
#ifndef ARENA_GRPC_PATTERNS_POOLED_ARENA_ALLOCATOR_H_
#define ARENA_GRPC_PATTERNS_POOLED_ARENA_ALLOCATOR_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "block_arena.h"
#include "google/protobuf/arena.h"
#include "grpcpp/support/message_allocator.h"
#include "idle_pool.h"

namespace reco::patterns {

struct PooledArenaOptions {
  // Each pooled arena's reused block. 512 KiB holds a 200-item reco.v1 response in
  // either text profile with room to spare; a larger response spills into heap
  // blocks, which Release() frees again (stats().overflows).
  size_t initial_block_bytes = 512 * 1024;
  // Pooled arenas that may exist at once, in use plus idle.
  size_t max_arenas = 64;
  // Growth (above): the largest block an arena may grow to; 0 never grows.
  size_t max_block_bytes = 0;
  // Growth stops when the pooled blocks would hold more than this in total.
  size_t max_pool_bytes = 0;
};

// Totals since the allocator was made (relaxed counters: statistics, not a snapshot).
struct PooledArenaStats {
  uint64_t allocated = 0;        // AllocateMessages() calls
  uint64_t released = 0;         // Release() calls; allocated - released are in use
  uint64_t arenas_created = 0;   // pooled arenas made, never more than max_arenas
  uint64_t unpooled = 0;         // calls given a plain arena: every pooled one was in use
  uint64_t idle = 0;             // pooled arenas waiting now
  uint64_t space_allocated = 0;  // sum of Arena::SpaceAllocated() at Release()
  uint64_t space_used = 0;       // sum of Arena::SpaceUsed() at Release()
  uint64_t overflows = 0;        // releases of a pooled arena grown past its block
  uint64_t grown = 0;            // of those, releases that gave the arena a larger block
  uint64_t block_bytes = 0;      // the pooled arenas' blocks now, in bytes
};

template <typename Request, typename Response>
class PooledArenaAllocator final : public grpc::MessageAllocator<Request, Response> {
 public:
  explicit PooledArenaAllocator(PooledArenaOptions options = {}) : options_(options), idle_(options.max_arenas) {}

  // One RPC's arena and messages. Pooled holders keep their arena (and its block)
  // between RPCs; a plain one lives for a single RPC.
  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    // block_bytes > 0: a pooled arena with its own block; 0: a plain arena.
    Holder(PooledArenaAllocator* owner, size_t block_bytes) : owner_(owner) {
      if (block_bytes > 0) {
        pooled_.emplace(block_bytes);
      } else {
        plain_.emplace();
      }
    }
    google::protobuf::Arena* arena() { return pooled_ ? pooled_->get() : &*plain_; }
    bool pooled() const { return pooled_.has_value(); }
    size_t block_bytes() const { return pooled_ ? pooled_->block_bytes() : 0; }

    // gRPC calls this once the RPC is done (answered, refused or cancelled).
    void Release() override { owner_->Recycle(this); }

   private:
    friend class PooledArenaAllocator;
    // On the thread that will parse the request and run the handler.
    void Start() {
      if (pooled_) pooled_->BindToThisThread();  // the arena is empty: see the trap above
      this->set_request(google::protobuf::Arena::CreateMessage<Request>(arena()));
      this->set_response(google::protobuf::Arena::CreateMessage<Response>(arena()));
    }

    PooledArenaAllocator* const owner_;
    std::optional<BlockArena> pooled_;
    std::optional<google::protobuf::Arena> plain_;
  };

  grpc::MessageHolder<Request, Response>* AllocateMessages() override {
    allocated_.fetch_add(1, std::memory_order_relaxed);
    std::unique_ptr<Holder> holder = idle_.Take();
    if (holder == nullptr) holder = NewHolder();
    holder->Start();
    return holder.release();
  }

  PooledArenaStats stats() const {
    PooledArenaStats s;
    s.allocated = allocated_.load(std::memory_order_relaxed);
    s.released = released_.load(std::memory_order_relaxed);
    s.arenas_created = arenas_created_.load(std::memory_order_relaxed);
    s.unpooled = unpooled_.load(std::memory_order_relaxed);
    s.idle = idle_.idle();
    s.space_allocated = space_allocated_.load(std::memory_order_relaxed);
    s.space_used = space_used_.load(std::memory_order_relaxed);
    s.overflows = overflows_.load(std::memory_order_relaxed);
    s.grown = grown_.load(std::memory_order_relaxed);
    s.block_bytes = block_bytes_.load(std::memory_order_relaxed);
    return s;
  }
  const PooledArenaOptions& options() const { return options_; }

 private:
  // A pooled holder while fewer than max_arenas exist, else a plain one.
  std::unique_ptr<Holder> NewHolder() {
    uint64_t made = arenas_created_.load(std::memory_order_relaxed);
    while (made < options_.max_arenas) {
      if (arenas_created_.compare_exchange_weak(made, made + 1, std::memory_order_relaxed)) {
        block_bytes_.fetch_add(options_.initial_block_bytes, std::memory_order_relaxed);
        return std::make_unique<Holder>(this, options_.initial_block_bytes);
      }
    }
    unpooled_.fetch_add(1, std::memory_order_relaxed);
    return std::make_unique<Holder>(this, 0);
  }

  void Recycle(Holder* released) {
    std::unique_ptr<Holder> holder(released);
    google::protobuf::Arena* arena = holder->arena();
    const uint64_t space = arena->SpaceAllocated();
    space_allocated_.fetch_add(space, std::memory_order_relaxed);
    space_used_.fetch_add(arena->SpaceUsed(), std::memory_order_relaxed);
    if (holder->pooled()) {
      const size_t grown_to = space > holder->block_bytes() ? GrownBlockBytes(*holder, space) : 0;
      if (space > holder->block_bytes()) overflows_.fetch_add(1, std::memory_order_relaxed);
      if (grown_to > 0) {
        holder->pooled_.reset();  // the arena and its spill, then the old block
        holder->pooled_.emplace(grown_to);
        grown_.fetch_add(1, std::memory_order_relaxed);
      } else {
        // Runs the destructors registered on the arena (freeing string payloads over
        // 15 bytes) and frees every block but the initial one: now, not when the arena
        // is next used, so an idle arena holds only its block.
        arena->Reset();
      }
      idle_.Give(std::move(holder));  // always kept: the pool has room for max_arenas
    }
    // A plain holder and its arena are deleted here.
    released_.fetch_add(1, std::memory_order_relaxed);
  }

  // The block `holder` should grow to after a reply whose arena took `space` bytes
  // from the system (SpaceAllocated: the objects, protobuf's bookkeeping and the
  // destructor list), with the pool's total block bytes already updated for it; 0 when
  // growth is off, would not help, or would pass max_pool_bytes.
  size_t GrownBlockBytes(const Holder& holder, uint64_t space) {
    if (options_.max_block_bytes == 0) return 0;
    constexpr uint64_t kStep = 64 * 1024;
    const uint64_t roomy = (space + space / 8 + kStep - 1) / kStep * kStep;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(roomy, options_.max_block_bytes));
    if (want <= holder.block_bytes()) return 0;
    const uint64_t added = want - holder.block_bytes();
    uint64_t now = block_bytes_.load(std::memory_order_relaxed);
    do {
      if (now + added > options_.max_pool_bytes) return 0;
    } while (!block_bytes_.compare_exchange_weak(now, now + added, std::memory_order_relaxed));
    return want;
  }

  const PooledArenaOptions options_;
  IdlePool<Holder> idle_;
  std::atomic<uint64_t> allocated_{0}, released_{0}, arenas_created_{0}, unpooled_{0};
  std::atomic<uint64_t> space_allocated_{0}, space_used_{0}, overflows_{0}, grown_{0};
  std::atomic<uint64_t> block_bytes_{0};  // the pooled arenas' blocks, in bytes
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_POOLED_ARENA_ALLOCATOR_H_
