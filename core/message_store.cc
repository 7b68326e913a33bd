// The four memory modes. See message_store.h.
#include "core/message_store.h"

#include <atomic>

#include "patterns/arena_message_allocator.h"
#include "patterns/pooled_arena_allocator.h"
#include "patterns/reused_message_allocator.h"

namespace reco {
namespace {

using v1::RecommendRequest;
using v1::RecommendResponse;

// gRPC's default path has no allocator: outside gRPC, a new request and response.
class HeapStore final : public MessageStore {
 public:
  MemoryMode mode() const override { return MemoryMode::kHeap; }
  RecommendAllocator* allocator() override { return nullptr; }
  MessageLease Acquire() override {
    acquired_.fetch_add(1, std::memory_order_relaxed);
    MessageLease lease;
    lease.request = new RecommendRequest;
    lease.response = new RecommendResponse;
    return lease;
  }
  void Release(const MessageLease& lease) override {
    delete lease.request;
    delete lease.response;
    released_.fetch_add(1, std::memory_order_relaxed);
  }
  MessageStoreStats Stats() const override {
    MessageStoreStats s;
    s.acquired = s.created = acquired_.load(std::memory_order_relaxed);
    s.released = released_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  std::atomic<uint64_t> acquired_{0}, released_{0};
};

// The other modes: a pattern allocator, driven as gRPC drives it.
template <typename Allocator>
class AllocatorStore : public MessageStore {
 public:
  template <typename... Args>
  AllocatorStore(MemoryMode mode, Args&&... args) : mode_(mode), allocator_(std::forward<Args>(args)...) {}
  MemoryMode mode() const override { return mode_; }
  RecommendAllocator* allocator() override { return &allocator_; }
  MessageLease Acquire() override {
    MessageLease lease;
    lease.holder = allocator_.AllocateMessages();
    lease.request = lease.holder->request();
    lease.response = lease.holder->response();
    lease.arena = lease.response->GetArena();
    return lease;
  }
  void Release(const MessageLease& lease) override { lease.holder->Release(); }

 protected:
  const MemoryMode mode_;
  Allocator allocator_;
};

class ReuseStore final : public AllocatorStore<patterns::ReusedMessageAllocator<RecommendRequest, RecommendResponse>> {
 public:
  explicit ReuseStore(const MessageStoreOptions& options)
      : AllocatorStore(MemoryMode::kReuse, options.max_idle, options.max_kept_bytes) {}
  MessageStoreStats Stats() const override {
    patterns::ReusedMessageStats r = allocator_.stats();
    MessageStoreStats s;
    s.acquired = r.allocated;
    s.released = r.released;
    s.created = r.created;
    s.idle = r.idle;
    s.oversized = r.oversized;
    return s;
  }
};

class ArenaStore final : public AllocatorStore<patterns::ArenaMessageAllocator<RecommendRequest, RecommendResponse>> {
 public:
  // Default ArenaOptions: that is the point of this mode.
  ArenaStore() : AllocatorStore(MemoryMode::kArena) {}
  MessageStoreStats Stats() const override {
    MessageStoreStats s;
    s.acquired = s.created = allocator_.allocated();
    s.released = allocator_.released();
    s.arena_space_allocated = allocator_.space_allocated();
    s.arena_space_used = allocator_.space_used();
    return s;
  }
};

class ArenaPoolStore final
    : public AllocatorStore<patterns::PooledArenaAllocator<RecommendRequest, RecommendResponse>> {
 public:
  explicit ArenaPoolStore(const MessageStoreOptions& options)
      : AllocatorStore(MemoryMode::kArenaPool,
                       patterns::PooledArenaOptions{options.initial_block_bytes, options.max_idle,
                                                    options.max_block_bytes, options.max_pool_bytes}) {}
  MessageStoreStats Stats() const override {
    patterns::PooledArenaStats p = allocator_.stats();
    MessageStoreStats s;
    s.acquired = p.allocated;
    s.released = p.released;
    s.created = p.arenas_created + p.unpooled;
    s.idle = p.idle;
    s.unpooled = p.unpooled;
    s.arena_space_allocated = p.space_allocated;
    s.arena_space_used = p.space_used;
    s.arena_overflows = p.overflows;
    s.arena_grown = p.grown;
    s.arena_block_bytes = p.block_bytes;
    return s;
  }
};

}  // namespace

const std::vector<MemoryMode>& AllMemoryModes() {
  static const std::vector<MemoryMode> kModes = {MemoryMode::kHeap, MemoryMode::kReuse, MemoryMode::kArena,
                                                 MemoryMode::kArenaPool};
  return kModes;
}

absl::string_view MemoryModeName(MemoryMode mode) {
  switch (mode) {
    case MemoryMode::kHeap:
      return "heap";
    case MemoryMode::kReuse:
      return "reuse";
    case MemoryMode::kArena:
      return "arena";
    case MemoryMode::kArenaPool:
      return "arena_pool";
  }
  return "unknown";
}

bool ParseMemoryMode(absl::string_view name, MemoryMode* mode) {
  for (MemoryMode m : AllMemoryModes()) {
    if (MemoryModeName(m) == name) {
      *mode = m;
      return true;
    }
  }
  return false;
}

std::unique_ptr<MessageStore> MakeMessageStore(MemoryMode mode, const MessageStoreOptions& options) {
  switch (mode) {
    case MemoryMode::kHeap:
      return std::make_unique<HeapStore>();
    case MemoryMode::kReuse:
      return std::make_unique<ReuseStore>(options);
    case MemoryMode::kArena:
      return std::make_unique<ArenaStore>();
    case MemoryMode::kArenaPool:
      return std::make_unique<ArenaPoolStore>(options);
  }
  return nullptr;
}

}  // namespace reco
