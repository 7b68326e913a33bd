// MessageStore: where one RPC's request and response live -- the four memory modes.
//
//   heap        new/delete per response. (gRPC's default path does the same for every
//               sub-message: its own per-call memory holds only the top-level objects.)
//   reuse       heap messages kept in a bounded pool and Clear()ed between uses. proto3
//               Clear() on a heap message keeps repeated elements and string capacity
//               for reuse but deletes singular sub-messages, so it saves only part of
//               the allocations.
//   arena       a fresh google::protobuf::Arena per response, default ArenaOptions,
//               messages made with Arena::CreateMessage. The arena's blocks are
//               allocated as it grows (256 B first, doubling up to 8 KiB).
//   arena_pool  arenas kept in a bounded pool, each with an initial block of
//               initial_block_bytes that is reused: Reset() frees only the blocks
//               beyond it. With a block large enough for the response, building and
//               releasing it allocate nothing except string payloads over 15 bytes.
//
// Example:
//   auto store = reco::MakeMessageStore(reco::MemoryMode::kArenaPool, {});
//   reco::MessageLease lease = store->Acquire();
//   reco::BuildResponse(request, lease.response);
//   ...serialize lease.response...
//   store->Release(lease);   // lease.request/response are invalid from here on
//
// Thread-safety: Acquire() and Release() may be called from any thread. A lease is
// used by one thread at a time. The store must outlive every lease it handed out.
#ifndef ARENA_GRPC_CORE_MESSAGE_STORE_H_
#define ARENA_GRPC_CORE_MESSAGE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
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
  // reuse and arena_pool keep at most this many idle leases. More may be in use at
  // once (one per RPC in flight); the extra ones are freed when released, so memory
  // held while idle is bounded by max_idle * (initial_block_bytes or message size).
  size_t max_idle = 64;
  // arena_pool: size of each arena's reused initial block. 512 KiB holds a default
  // 200-item response in either text profile (about 200 KB of arena space) with
  // room to spare; larger responses spill into heap blocks, which Reset() frees.
  size_t initial_block_bytes = 512 * 1024;
};

// One RPC's messages. arena is null in the heap modes.
struct MessageLease {
  v1::RecommendRequest* request = nullptr;
  v1::RecommendResponse* response = nullptr;
  google::protobuf::Arena* arena = nullptr;
  void* slot = nullptr;  // the store's own bookkeeping
};

// Totals since the store was made. Arena figures are read just before an arena is
// destroyed or reset, i.e. at the end of each lease.
struct MessageStoreStats {
  uint64_t acquired = 0;
  uint64_t released = 0;
  uint64_t created = 0;     // leases made from scratch (the pool was empty)
  uint64_t idle = 0;        // leases waiting in the pool now
  uint64_t arena_space_allocated = 0;  // sum of Arena::SpaceAllocated() at release
  uint64_t arena_space_used = 0;       // sum of Arena::SpaceUsed() at release
  uint64_t arena_overflows = 0;        // arena_pool: releases that found heap blocks
                                       // beyond the initial block
};

class MessageStore {
 public:
  virtual ~MessageStore() = default;
  virtual MemoryMode mode() const = 0;
  // Empty messages for one response.
  virtual MessageLease Acquire() = 0;
  // Frees, clears or resets the lease's messages.
  virtual void Release(const MessageLease& lease) = 0;
  virtual MessageStoreStats Stats() const = 0;
};

std::unique_ptr<MessageStore> MakeMessageStore(MemoryMode mode, const MessageStoreOptions& options);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_MESSAGE_STORE_H_
