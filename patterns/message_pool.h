// SPDX-License-Identifier: Apache-2.0
// MessagePool: a bounded, thread-safe pool of reused heap messages -- the alternative
// to arenas.
//
// A handler that Acquire()s a message, fills it, serializes it and Release()s it
// skips part of the malloc/free traffic of building a fresh message every time,
// without any arena. How much it skips is decided by what Clear() keeps in proto3
// (protobuf 3.21, heap messages; proven in message_pool_test.cc):
//   kept   every repeated field's element objects (a later add_x() hands them back),
//          and the capacity of every std::string already allocated: refilling them
//          with text that fits costs no malloc;
//   freed  every singular sub-message (mutable_x() allocates it again) -- the
//          generated Clear() deletes them.
// So a message whose bulk is repeated sub-messages with their own singular
// sub-messages (an Item with price, image, ...) still mallocs those on every reuse.
// A pooled message also keeps its high-water size: one 10,000-item response makes
// every later use hold 10,000 cleared items; cap that with max_idle and by not
// releasing outliers (let the unique_ptr delete them).
//
// Example:
//   MessagePool<v1::FeedResponse> pool(/*max_idle=*/64);
//   std::unique_ptr<v1::FeedResponse> response = pool.Acquire();  // empty
//   Fill(response.get()); Send(*response);
//   pool.Release(std::move(response));  // Clear()ed here, kept if fewer than 64 idle
//
// Thread-safety: Acquire() and Release() may be called from any thread; a message
// belongs to one thread between them. Acquired messages are plain unique_ptrs: they
// may outlive the pool. (Copying it: needs idle_pool.h beside it.)
#ifndef ARENA_GRPC_PATTERNS_MESSAGE_POOL_H_
#define ARENA_GRPC_PATTERNS_MESSAGE_POOL_H_

#include <cstddef>
#include <memory>
#include <utility>

#include "idle_pool.h"

namespace reco::patterns {

template <typename Message>
class MessagePool {
 public:
  // Keeps at most max_idle released messages; more may be out at once.
  explicit MessagePool(size_t max_idle) : idle_(max_idle) {}

  // An empty message: a released one when there is one, else a new one.
  std::unique_ptr<Message> Acquire() {
    std::unique_ptr<Message> message = idle_.Take();
    return message != nullptr ? std::move(message) : std::make_unique<Message>();
  }

  // Clears `message` (on the caller's thread, outside the lock) and keeps it, or
  // deletes it when max_idle messages are already idle.
  void Release(std::unique_ptr<Message> message) {
    if (message == nullptr) return;
    message->Clear();
    idle_.Give(std::move(message));
  }

  size_t idle() const { return idle_.idle(); }

 private:
  IdlePool<Message> idle_;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_MESSAGE_POOL_H_
