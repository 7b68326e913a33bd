// SPDX-License-Identifier: Apache-2.0
// IdlePool: a bounded, thread-safe stack of idle objects kept for reuse -- the one
// pool under every pooled pattern here (MessagePool, ReusedMessageAllocator,
// PooledArenaAllocator) and the server's measuring allocator.
//
// Its storage is reserved up front, so Take() and Give() never allocate: a pooled
// steady state must make no malloc of its own. It only parks objects; deciding when
// to make a new one is the caller's job.
//
// Example:
//   IdlePool<Buffer> pool(/*capacity=*/64);
//   std::unique_ptr<Buffer> b = pool.Take();        // null when none is idle
//   if (b == nullptr) b = std::make_unique<Buffer>();
//   Use(*b);
//   pool.Give(std::move(b));   // parked, or deleted on return when 64 are idle already
//
// Thread-safety: Take(), Give() and idle() may be called from any thread at once. An
// object belongs to one caller between Take() and Give().
#ifndef ARENA_GRPC_PATTERNS_IDLE_POOL_H_
#define ARENA_GRPC_PATTERNS_IDLE_POOL_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace reco::patterns {

template <typename T>
class IdlePool {
 public:
  explicit IdlePool(size_t capacity) : capacity_(capacity) { idle_.reserve(capacity); }

  // An idle object, or null when there is none.
  std::unique_ptr<T> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.empty()) return nullptr;
    std::unique_ptr<T> t = std::move(idle_.back());
    idle_.pop_back();
    return t;
  }

  // Parks `t` for reuse. When `capacity` objects are idle already, `t` is deleted
  // instead, outside the lock (its destructor may be slow: an arena's blocks).
  // Returns whether it was kept.
  bool Give(std::unique_ptr<T> t) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_.size() < capacity_) {
        idle_.push_back(std::move(t));  // never reallocates: reserved above
        return true;
      }
    }
    return false;
  }

  size_t idle() const {
    std::lock_guard<std::mutex> lock(mu_);
    return idle_.size();
  }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<T>> idle_;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_IDLE_POOL_H_
