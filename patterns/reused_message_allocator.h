// SPDX-License-Identifier: Apache-2.0
// ReusedMessageAllocator: a grpc::MessageAllocator that reuses Clear()ed heap messages
// instead of arenas -- reco_server's `reuse` mode is this class.
//
// Each RPC gets a holder with a request and a response that earlier RPCs used; at
// Release() both are Clear()ed and the holder goes back to a bounded pool. What that
// saves is what proto3 Clear() keeps on a heap message (protobuf 3.21, proven in
// message_pool_test.cc): repeated elements and string capacity are kept, singular
// sub-messages are deleted -- so building a response after Clear() still mallocs
// every singular sub-message (an item's price, image, ...) again.
//
// A pooled message keeps its high-water size: after one 10,000-item response, that
// holder would keep 10,000 cleared items while idle, for good. So a holder
// whose reply was larger than max_kept_bytes when serialized (GetCachedSize(): gRPC
// computed it to send the reply, so reading it costs nothing) is deleted at release
// instead of kept, and max_idle bounds how many are kept: the pool holds at most
// about max_idle x (a few times max_kept_bytes). A release beyond either deletes the
// holder.
//
// Install (the allocator must outlive the server):
//   ReusedMessageAllocator<v1::FeedRequest, v1::FeedResponse> allocator(/*max_idle=*/64);
//   service.SetMessageAllocatorFor_GetFeed(&allocator);   // before BuildAndStart()
//
// Copying it: needs idle_pool.h beside it, protobuf and gRPC.
//
// Thread-safety: AllocateMessages() and Release() may run on any gRPC thread at once.
// Every holder must be released before the allocator is destroyed.
#ifndef ARENA_GRPC_PATTERNS_REUSED_MESSAGE_ALLOCATOR_H_
#define ARENA_GRPC_PATTERNS_REUSED_MESSAGE_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "grpcpp/support/message_allocator.h"
#include "idle_pool.h"

namespace reco::patterns {

// Totals since the allocator was made (relaxed counters).
struct ReusedMessageStats {
  uint64_t allocated = 0;  // AllocateMessages() calls
  uint64_t released = 0;   // Release() calls; allocated - released are in use
  uint64_t created = 0;    // holders made because none was idle
  uint64_t idle = 0;       // holders waiting now
  uint64_t oversized = 0;  // released holders deleted because their reply was over max_kept_bytes
};

template <typename Request, typename Response>
class ReusedMessageAllocator final : public grpc::MessageAllocator<Request, Response> {
 public:
  // Keeps at most max_idle released holders (more may be in use at once), and none
  // whose reply serialized to more than max_kept_bytes.
  explicit ReusedMessageAllocator(size_t max_idle = 64, size_t max_kept_bytes = 1 << 20)
      : idle_(max_idle), max_kept_bytes_(max_kept_bytes) {}

  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    explicit Holder(ReusedMessageAllocator* owner) : owner_(owner) {
      this->set_request(&request_);
      this->set_response(&response_);
    }
    void Release() override { owner_->Recycle(this); }

   private:
    friend class ReusedMessageAllocator;
    ReusedMessageAllocator* const owner_;
    Request request_;
    Response response_;
  };

  grpc::MessageHolder<Request, Response>* AllocateMessages() override {
    allocated_.fetch_add(1, std::memory_order_relaxed);
    std::unique_ptr<Holder> holder = idle_.Take();
    if (holder == nullptr) {
      created_.fetch_add(1, std::memory_order_relaxed);
      holder = std::make_unique<Holder>(this);
    }
    return holder.release();
  }

  ReusedMessageStats stats() const {
    ReusedMessageStats s;
    s.allocated = allocated_.load(std::memory_order_relaxed);
    s.released = released_.load(std::memory_order_relaxed);
    s.created = created_.load(std::memory_order_relaxed);
    s.idle = idle_.idle();
    s.oversized = oversized_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  void Recycle(Holder* released) {
    std::unique_ptr<Holder> holder(released);
    released_.fetch_add(1, std::memory_order_relaxed);
    if (static_cast<size_t>(holder->response_.GetCachedSize()) > max_kept_bytes_) {
      oversized_.fetch_add(1, std::memory_order_relaxed);
      return;  // deleted: its capacity would stay with the pool while idle
    }
    // On the releasing thread, outside any lock.
    holder->request_.Clear();
    holder->response_.Clear();
    idle_.Give(std::move(holder));  // deleted here when max_idle are idle already
  }

  IdlePool<Holder> idle_;
  const size_t max_kept_bytes_;
  std::atomic<uint64_t> allocated_{0}, released_{0}, created_{0}, oversized_{0};
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_REUSED_MESSAGE_ALLOCATOR_H_
