// The four memory modes. See message_store.h.
#include "core/message_store.h"

#include <atomic>
#include <mutex>

namespace reco {
namespace {

using google::protobuf::Arena;
using v1::RecommendRequest;
using v1::RecommendResponse;

// Counters shared by the stores; relaxed atomics, since they are statistics.
struct StoreCounters {
  std::atomic<uint64_t> acquired{0}, released{0}, created{0};
  std::atomic<uint64_t> arena_space_allocated{0}, arena_space_used{0}, arena_overflows{0};

  MessageStoreStats Read(uint64_t idle) const {
    MessageStoreStats s;
    s.acquired = acquired.load(std::memory_order_relaxed);
    s.released = released.load(std::memory_order_relaxed);
    s.created = created.load(std::memory_order_relaxed);
    s.idle = idle;
    s.arena_space_allocated = arena_space_allocated.load(std::memory_order_relaxed);
    s.arena_space_used = arena_space_used.load(std::memory_order_relaxed);
    s.arena_overflows = arena_overflows.load(std::memory_order_relaxed);
    return s;
  }
  void RecordArena(const Arena& arena) {
    arena_space_allocated.fetch_add(arena.SpaceAllocated(), std::memory_order_relaxed);
    arena_space_used.fetch_add(arena.SpaceUsed(), std::memory_order_relaxed);
  }
};

// A bounded stack of idle objects. Its storage is reserved up front so that taking
// and returning never allocates: in arena_pool the steady state must make none.
template <typename T>
class IdlePool {
 public:
  explicit IdlePool(size_t max_idle) : max_idle_(max_idle) { idle_.reserve(max_idle); }
  ~IdlePool() {
    for (T* t : idle_) delete t;
  }
  // An idle object, or null when there is none.
  T* Take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.empty()) return nullptr;
    T* t = idle_.back();
    idle_.pop_back();
    return t;
  }
  // Keeps t for reuse, or deletes it when the pool is full.
  void Return(T* t) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_.size() < max_idle_) {
        idle_.push_back(t);
        return;
      }
    }
    delete t;
  }
  size_t Idle() const {
    std::lock_guard<std::mutex> lock(mu_);
    return idle_.size();
  }

 private:
  const size_t max_idle_;
  mutable std::mutex mu_;
  std::vector<T*> idle_;
};

class HeapStore final : public MessageStore {
 public:
  MemoryMode mode() const override { return MemoryMode::kHeap; }
  MessageLease Acquire() override {
    counters_.acquired.fetch_add(1, std::memory_order_relaxed);
    counters_.created.fetch_add(1, std::memory_order_relaxed);
    MessageLease lease;
    lease.request = new RecommendRequest;
    lease.response = new RecommendResponse;
    return lease;
  }
  void Release(const MessageLease& lease) override {
    delete lease.request;
    delete lease.response;
    counters_.released.fetch_add(1, std::memory_order_relaxed);
  }
  MessageStoreStats Stats() const override { return counters_.Read(0); }

 private:
  StoreCounters counters_;
};

class ReuseStore final : public MessageStore {
 public:
  explicit ReuseStore(const MessageStoreOptions& options) : pool_(options.max_idle) {}
  MemoryMode mode() const override { return MemoryMode::kReuse; }
  MessageLease Acquire() override {
    counters_.acquired.fetch_add(1, std::memory_order_relaxed);
    Pair* pair = pool_.Take();
    if (pair == nullptr) {
      counters_.created.fetch_add(1, std::memory_order_relaxed);
      pair = new Pair;
    }
    MessageLease lease;
    lease.request = &pair->request;
    lease.response = &pair->response;
    lease.slot = pair;
    return lease;
  }
  void Release(const MessageLease& lease) override {
    Pair* pair = static_cast<Pair*>(lease.slot);
    pair->request.Clear();
    pair->response.Clear();
    pool_.Return(pair);
    counters_.released.fetch_add(1, std::memory_order_relaxed);
  }
  MessageStoreStats Stats() const override { return counters_.Read(pool_.Idle()); }

 private:
  struct Pair {
    RecommendRequest request;
    RecommendResponse response;
  };
  IdlePool<Pair> pool_;
  StoreCounters counters_;
};

class ArenaStore final : public MessageStore {
 public:
  MemoryMode mode() const override { return MemoryMode::kArena; }
  MessageLease Acquire() override {
    counters_.acquired.fetch_add(1, std::memory_order_relaxed);
    counters_.created.fetch_add(1, std::memory_order_relaxed);
    MessageLease lease;
    lease.arena = new Arena;  // default ArenaOptions: that is the point of this mode
    // CreateMessage, not Create: in protobuf 3.21 Arena::Create<T> on a message type
    // builds it without the arena pointer, and every sub-object goes to the heap.
    lease.request = Arena::CreateMessage<RecommendRequest>(lease.arena);
    lease.response = Arena::CreateMessage<RecommendResponse>(lease.arena);
    return lease;
  }
  void Release(const MessageLease& lease) override {
    counters_.RecordArena(*lease.arena);
    delete lease.arena;
    counters_.released.fetch_add(1, std::memory_order_relaxed);
  }
  MessageStoreStats Stats() const override { return counters_.Read(0); }

 private:
  StoreCounters counters_;
};

class ArenaPoolStore final : public MessageStore {
 public:
  explicit ArenaPoolStore(const MessageStoreOptions& options)
      : block_bytes_(options.initial_block_bytes), pool_(options.max_idle) {}
  MemoryMode mode() const override { return MemoryMode::kArenaPool; }
  MessageLease Acquire() override {
    counters_.acquired.fetch_add(1, std::memory_order_relaxed);
    PooledArena* pooled = pool_.Take();
    if (pooled == nullptr) {
      counters_.created.fetch_add(1, std::memory_order_relaxed);
      pooled = new PooledArena(block_bytes_);
    } else {
      // The arena is empty (Release reset it), but protobuf 3.21 gives the initial
      // block to the thread that called Reset(); any other thread allocating on the
      // arena gets fresh heap blocks. In a server the releasing thread is rarely the
      // one that builds the next response, so reset again here, on the thread that
      // will build: an empty arena's Reset() frees and allocates nothing, and it
      // hands the initial block to this thread.
      pooled->arena.Reset();
    }
    MessageLease lease;
    lease.arena = &pooled->arena;
    lease.request = Arena::CreateMessage<RecommendRequest>(lease.arena);
    lease.response = Arena::CreateMessage<RecommendResponse>(lease.arena);
    lease.slot = pooled;
    return lease;
  }
  void Release(const MessageLease& lease) override {
    PooledArena* pooled = static_cast<PooledArena*>(lease.slot);
    counters_.RecordArena(pooled->arena);
    if (pooled->arena.SpaceAllocated() > block_bytes_) {
      counters_.arena_overflows.fetch_add(1, std::memory_order_relaxed);
    }
    // Reset() runs the destructors the arena registered (freeing long string
    // payloads), frees every block but the initial one, and keeps that for reuse.
    pooled->arena.Reset();
    pool_.Return(pooled);
    counters_.released.fetch_add(1, std::memory_order_relaxed);
  }
  MessageStoreStats Stats() const override { return counters_.Read(pool_.Idle()); }

 private:
  struct PooledArena {
    explicit PooledArena(size_t bytes) : block(new char[bytes]), arena(Options(block.get(), bytes)) {}
    static google::protobuf::ArenaOptions Options(char* block, size_t bytes) {
      google::protobuf::ArenaOptions options;
      options.initial_block = block;
      options.initial_block_size = bytes;
      return options;
    }
    std::unique_ptr<char[]> block;  // declared first: must outlive the arena
    Arena arena;
  };
  const size_t block_bytes_;
  IdlePool<PooledArena> pool_;
  StoreCounters counters_;
};

}  // namespace

const std::vector<MemoryMode>& AllMemoryModes() {
  static const std::vector<MemoryMode> kModes = {MemoryMode::kHeap, MemoryMode::kReuse, MemoryMode::kArena,
                                                 MemoryMode::kArenaPool};
  return kModes;
}

absl::string_view MemoryModeName(MemoryMode mode) {
  switch (mode) {
    case MemoryMode::kHeap: return "heap";
    case MemoryMode::kReuse: return "reuse";
    case MemoryMode::kArena: return "arena";
    case MemoryMode::kArenaPool: return "arena_pool";
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
    case MemoryMode::kHeap: return std::make_unique<HeapStore>();
    case MemoryMode::kReuse: return std::make_unique<ReuseStore>(options);
    case MemoryMode::kArena: return std::make_unique<ArenaStore>();
    case MemoryMode::kArenaPool: return std::make_unique<ArenaPoolStore>(options);
  }
  return nullptr;
}

}  // namespace reco
