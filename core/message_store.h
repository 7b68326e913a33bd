// MessageStore: where one RPC's request and response live -- the four memory modes.
//
//   heap        no allocator: gRPC's default path (plain messages, every sub-message
//               and string its own malloc); outside gRPC, new/delete per response.
//   reuse       patterns/reused_message_allocator.h: heap messages kept in a bounded
//               pool and Clear()ed between uses. proto3 Clear() on a heap message keeps
//               repeated elements and string capacity but deletes singular
//               sub-messages, so it saves only part of the allocations.
//   arena       patterns/arena_message_allocator.h: a fresh google::protobuf::Arena per
//               response, default ArenaOptions (blocks from 256 B, doubling to 8 KiB).
//   arena_pool  patterns/pooled_arena_allocator.h: pooled arenas, each with a reused
//               initial block of initial_block_bytes; with a block large enough for the
//               response, building and releasing it allocate nothing except string
//               payloads over 15 bytes.
//
// Each non-heap mode IS the grpc::MessageAllocator the server installs -- the pattern
// file a reader copies, not a second implementation. Acquire()/Release() drive that
// same allocator outside gRPC (AllocateMessages(), then the holder's Release()), so
// the ledger, the benchmarks and the fuzzer measure the server's code path.
//
// Example:
//   auto store = reco::MakeMessageStore(reco::MemoryMode::kArenaPool, {});
//   service.SetMessageAllocatorFor_Recommend(store->allocator());  // null for heap
//   // or, outside gRPC:
//   reco::MessageLease lease = store->Acquire();
//   reco::BuildResponse(catalogue, request, lease.response);
//   store->Release(lease);   // lease.request/response are invalid from here on
//
// Thread-safety: Acquire(), Release() and Stats() may be called from any thread. A
// lease is used by one thread at a time. The store must outlive every lease and every
// server it is installed in.
#ifndef ARENA_GRPC_CORE_MESSAGE_STORE_H_
#define ARENA_GRPC_CORE_MESSAGE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "grpcpp/support/message_allocator.h"
#include "proto/reco.pb.h"

namespace reco {

enum class MemoryMode { kHeap, kReuse, kArena, kArenaPool };

// All modes, in the order reports list them.
const std::vector<MemoryMode>& AllMemoryModes();
// "heap", "reuse", "arena", "arena_pool".
absl::string_view MemoryModeName(MemoryMode mode);
// False for anything but the four names above.
bool ParseMemoryMode(absl::string_view name, MemoryMode* mode);

struct MessageStoreOptions {
  // reuse: idle messages kept (more may be in use; the extra ones are freed when
  // released). arena_pool: pooled arenas at most, in use plus idle; a call beyond
  // them gets a plain arena for itself. Either way the memory held by the pool is
  // bounded by max_idle * (initial_block_bytes or message size).
  size_t max_idle = 64;
  // arena_pool: size of each arena's reused initial block. 512 KiB holds a default
  // 200-item response in either text profile with room to spare (docs/benchmarks.md,
  // "ArenaOptions sweep", has its arena space); larger responses spill into heap
  // blocks, which Release frees.
  size_t initial_block_bytes = 512 * 1024;
  // arena_pool: an arena whose reply spilled past its block grows its block to fit
  // (the space taken plus an eighth, at most max_block_bytes; 0: never), while all the pool's
  // blocks stay within max_pool_bytes (patterns/pooled_arena_allocator.h). The pool
  // then holds at most max(max_idle * initial_block_bytes, max_pool_bytes). 32 MiB
  // fits a 10,000-item reply's arena in either text profile; 96 MiB lets four such
  // replies in flight keep grown blocks beside 60 small ones.
  size_t max_block_bytes = 32 << 20;
  size_t max_pool_bytes = 96 << 20;
  // reuse: a released message whose reply serialized to more than this is freed,
  // not kept (a kept message keeps its largest size while idle). 1 MiB keeps the
  // default 200-item replies and drops 10,000-item ones.
  size_t max_kept_bytes = 1 << 20;
};

using RecommendAllocator = grpc::MessageAllocator<v1::RecommendRequest, v1::RecommendResponse>;
using RecommendHolder = grpc::MessageHolder<v1::RecommendRequest, v1::RecommendResponse>;

// One RPC's messages. arena is null in the heap modes; holder is null in heap.
struct MessageLease {
  v1::RecommendRequest* request = nullptr;
  v1::RecommendResponse* response = nullptr;
  google::protobuf::Arena* arena = nullptr;
  RecommendHolder* holder = nullptr;
};

// Totals since the store was made. Arena figures are read just before an arena is
// destroyed or reset, i.e. at the end of each lease.
struct MessageStoreStats {
  uint64_t acquired = 0;
  uint64_t released = 0;
  uint64_t created = 0;                // leases made from scratch (nothing idle to reuse)
  uint64_t idle = 0;                   // leases waiting in the pool now
  uint64_t unpooled = 0;               // arena_pool: leases given a plain arena (max_idle in use)
  uint64_t arena_space_allocated = 0;  // sum of Arena::SpaceAllocated() at release
  uint64_t arena_space_used = 0;       // sum of Arena::SpaceUsed() at release
  uint64_t arena_overflows = 0;        // arena_pool: releases that found heap blocks
                                       // beyond the initial block
  uint64_t arena_grown = 0;            // arena_pool: of those, releases that grew the block
  uint64_t arena_block_bytes = 0;      // arena_pool: the pooled arenas' blocks now (gauge)
  uint64_t oversized = 0;              // reuse: released messages freed for being over max_kept_bytes
};

class MessageStore {
 public:
  virtual ~MessageStore() = default;
  virtual MemoryMode mode() const = 0;
  // What the server installs with SetMessageAllocatorFor_Recommend; null for heap.
  virtual RecommendAllocator* allocator() = 0;
  // Empty messages for one response, as gRPC would get them for one RPC.
  virtual MessageLease Acquire() = 0;
  // Frees, clears or resets the lease's messages (the holder's Release()).
  virtual void Release(const MessageLease& lease) = 0;
  virtual MessageStoreStats Stats() const = 0;
};

std::unique_ptr<MessageStore> MakeMessageStore(MemoryMode mode, const MessageStoreOptions& options);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_MESSAGE_STORE_H_
