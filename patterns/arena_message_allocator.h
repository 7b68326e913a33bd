// ArenaMessageAllocator: gives every unary callback RPC its own protobuf Arena.
//
// Without a MessageAllocator, gRPC 1.51 puts a callback method's request and response
// in its own per-call memory, with no protobuf Arena: every sub-message and string the
// handler creates is a separate heap allocation. Installing this allocator makes gRPC
// ask it for the two messages instead. Each RPC gets a fresh Arena; the request, the
// response and the MessageHolder gRPC keeps are all created on it, so the holder costs
// no malloc of its own, and when the RPC is done gRPC calls Release(), which frees the
// whole tree in one go (the arena's blocks, plus any string longer than 15 bytes:
// protobuf 3.21 keeps string payloads on the heap even on an arena).
//
// Install (the allocator must outlive the server):
//   class RecommenderImpl final : public reco::v1::Recommender::CallbackService { ... };
//   ArenaMessageAllocator<reco::v1::RecommendRequest, reco::v1::RecommendResponse> allocator;
//   RecommenderImpl service;
//   service.SetMessageAllocatorFor_Recommend(&allocator);   // before BuildAndStart()
//
// In the handler, build into `response` as usual (mutable_*, add_*): everything lands
// on response->GetArena(). Never hand a pointer into the request or response to code
// that runs after Finish(): it dies with the arena in Release().
//
// Only unary callback methods accept an allocator (gRPC's API, not ours).
// Thread-safety: AllocateMessages() may be called from any thread at once (it only
// touches atomics); each holder is used by one RPC.
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
  // RPCs would share it. Setup cost per RPC, before the handler runs: the Arena object
  // plus its first block -- 2 mallocs with start_block_size >= 512; with the default
  // 256 bytes the holder and the two empty messages spill into a second block (3).
  // A start_block_size near your typical response size saves the doubling blocks.
  explicit ArenaMessageAllocator(google::protobuf::ArenaOptions options = {}) : options_(options) {
    if (options_.initial_block != nullptr) {  // a programming error, in every build type
      std::fprintf(stderr, "ArenaMessageAllocator: ArenaOptions.initial_block must be null: "
                           "one block cannot serve concurrent RPCs\n");
      std::abort();
    }
  }

  grpc::MessageHolder<Request, Response>* AllocateMessages() override {
    allocated_.fetch_add(1, std::memory_order_relaxed);
    auto* arena = new google::protobuf::Arena(options_);
    return google::protobuf::Arena::Create<Holder>(arena, arena, &released_);
  }

  // RPCs that got messages, and RPCs whose messages were freed. Equal when idle:
  // a gap that never closes is a leak.
  uint64_t allocated() const { return allocated_.load(std::memory_order_relaxed); }
  uint64_t released() const { return released_.load(std::memory_order_relaxed); }

 private:
  // Lives on the arena it owns. Create<Holder> (not CreateMessage: Holder is not a
  // message) registers ~Holder with the arena, which runs it inside `delete arena_`.
  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    Holder(google::protobuf::Arena* arena, std::atomic<uint64_t>* released)
        : arena_(arena), released_(released) {
      this->set_request(google::protobuf::Arena::CreateMessage<Request>(arena));
      this->set_response(google::protobuf::Arena::CreateMessage<Response>(arena));
    }
    void Release() override {
      released_->fetch_add(1, std::memory_order_relaxed);
      // Destroys *this too, like `delete this`: touch no member after this line.
      delete arena_;
    }

   private:
    google::protobuf::Arena* const arena_;
    std::atomic<uint64_t>* const released_;
  };

  const google::protobuf::ArenaOptions options_;
  std::atomic<uint64_t> allocated_{0};
  std::atomic<uint64_t> released_{0};
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_ARENA_MESSAGE_ALLOCATOR_H_
