// SPDX-License-Identifier: Apache-2.0
// SyncArenaReplies: arena-built replies for a SYNCHRONOUS gRPC server. The handler
// takes the request as bytes and gives the reply as bytes, and parses and builds both
// on a pooled protobuf Arena whose reused block makes the build free of mallocs.
//
// Why a raw method: the synchronous API has no allocator hook, and a typed sync
// handler's response is gRPC's own heap message, a malloc per sub-message and string.
// Building on an arena and copying, reusing a message, or a better malloc each do
// less well than this, measured: docs/patterns.md, section 8. Here the handler makes
// two mallocs per call (the reply's slice and gRPC's byte buffer).
// The pool rather than a thread_local arena: gRPC's sync server may start and end
// handler threads as load changes, and a thread_local block would be made again for
// every new thread; the pool's blocks outlive threads and are bounded.
//
// The traps:
//  - gRPC 1.51's generated WithRawMethod_X is the ASYNC raw API (RequestX on a
//    completion queue) and there is no sync raw variant: SyncRawService registers a
//    sync method on bytes with gRPC's own sync unary handler class (the one every
//    generated sync method uses, from <grpcpp/support/method_handler.h>).
//  - a raw handler must refuse a request that never arrived: use ParseRawRequest
//    (raw_request.h), never ParseFromArray on whatever bytes are there.
//  - an arena's initial block belongs to the thread that last Reset() it (protobuf
//    3.21): Begin() rebinds it to the calling thread (free), else a pooled arena
//    reused on another server thread mallocs fresh blocks for the whole reply.
//  - protobuf 3.21 keeps string characters over 15 bytes on the heap even on an
//    arena: each such string is still one malloc (freed at Reset).
//  - nothing built on the call's arena may outlive the handler: the arena is Reset
//    when the Call goes out of scope. The reply's bytes are a copy (the serialization
//    is the copy), so gRPC may send them later.
//
// Example:
//   class FeedSync final : public SyncRawService {
//    public:
//     FeedSync() { AddUnary("/feed.v1.Feed/GetFeed", [this](auto*, auto* in, auto* out) { return Get(*in, out); }); }
//     grpc::Status Get(const grpc::ByteBuffer& request_bytes, grpc::ByteBuffer* reply_bytes) {
//       SyncArenaReplies::Call call = replies_.Begin();      // a pooled arena, bound to this thread
//       auto* request = call.Create<feed::v1::FeedRequest>();
//       grpc::Status status = ParseRawRequest(request_bytes, request);
//       if (!status.ok()) return status;                     // INVALID_ARGUMENT
//       auto* reply = call.Create<feed::v1::FeedResponse>();
//       Fill(*request, reply);
//       return call.Serialize(*reply, reply_bytes);           // one slice; Reset as `call` ends
//     }
//    private:
//     SyncArenaReplies replies_;                            // 512 KiB blocks, at most 64 pooled
//   };
//   FeedSync service;                                       // outlives the server
//   builder.RegisterService(&service);
//
// Bounded: at most max_arenas pooled arenas exist (in use plus idle), so the pool
// holds at most max_arenas * block_bytes. A call that finds every pooled arena in use
// gets a plain Arena for that call (stats().unpooled); a reply larger than the block
// spills into heap blocks that Reset frees (stats().overflows).
//
// Thread-safety: Begin() and stats() from any thread at once (gRPC's sync server runs
// handlers on several threads). A Call belongs to the thread that began it and must
// end there (a local in the handler does). SyncArenaReplies must outlive every Call;
// SyncRawService must outlive the server, and AddUnary() only before RegisterService.
//
// Copying it: needs raw_request.h (and raw_request.cc), block_arena.h and idle_pool.h
// beside it, protobuf and gRPC; nothing else of this project.
#ifndef ARENA_GRPC_PATTERNS_SYNC_ARENA_REPLY_H_
#define ARENA_GRPC_PATTERNS_SYNC_ARENA_REPLY_H_

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/impl/rpc_service_method.h>
#include <grpcpp/impl/service_type.h>
#include <grpcpp/server_context.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/method_handler.h>
#include <grpcpp/support/slice.h>
#include <grpcpp/support/status.h>

#include "block_arena.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/message_lite.h"
#include "idle_pool.h"
#include "raw_request.h"

namespace reco::patterns {

// Replaces *out with `message`'s wire bytes in one gRPC slice: ByteSizeLong() once,
// then written straight into the slice. Mallocs: the slice (none when the bytes fit
// in a slice's inline storage, GRPC_SLICE_INLINED_SIZE) and gRPC's byte buffer; frees
// only what *out held before. INTERNAL for a message over 2 GiB (protobuf's limit).
inline grpc::Status SerializeToOneSlice(const google::protobuf::MessageLite& message, grpc::ByteBuffer* out) {
  const size_t size = message.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "reply over 2 GiB: " + message.GetTypeName());
  }
  grpc::Slice slice(size);
  // The slice is ours alone until handed over: gRPC's own GenericSerialize writes
  // into a fresh slice the same way.
  message.SerializeWithCachedSizesToArray(const_cast<uint8_t*>(slice.begin()));
  grpc::ByteBuffer bytes(&slice, 1);
  out->Swap(&bytes);
  return grpc::Status::OK;
}

struct SyncArenaRepliesOptions {
  // Each pooled arena's reused block: as large as a call's request and reply on the
  // arena, or the call spills into heap blocks.
  size_t block_bytes = 512 * 1024;
  // Pooled arenas that may exist at once, in use plus idle: at least the server's
  // handler threads, or calls beyond that get plain arenas.
  size_t max_arenas = 64;
};

// Totals since the pool was made (relaxed counters: statistics, not a snapshot).
struct SyncArenaRepliesStats {
  uint64_t calls = 0;           // Begin() calls
  uint64_t arenas_created = 0;  // pooled arenas made, never more than max_arenas
  uint64_t unpooled = 0;        // calls given a plain arena: every pooled one was in use
  uint64_t overflows = 0;       // calls that grew a pooled arena past its block
  uint64_t idle = 0;            // pooled arenas waiting now
};

class SyncArenaReplies {
  struct Entry {
    explicit Entry(size_t block_bytes) {
      if (block_bytes > 0) {
        pooled.emplace(block_bytes);
      } else {
        plain.emplace();
      }
    }
    google::protobuf::Arena* arena() { return pooled ? pooled->get() : &*plain; }
    std::optional<BlockArena> pooled;
    std::optional<google::protobuf::Arena> plain;
  };

 public:
  explicit SyncArenaReplies(SyncArenaRepliesOptions options = {}) : options_(options), idle_(options.max_arenas) {}

  // One call's arena, from Begin() to the end of the handler. At its end the arena is
  // Reset (whatever was built on it dies) and goes back to the pool.
  class Call {
   public:
    google::protobuf::Arena* arena() { return entry_->arena(); }
    // A message on this call's arena (with all its sub-messages).
    template <typename T>
    T* Create() {
      return google::protobuf::Arena::CreateMessage<T>(arena());
    }
    // The reply's bytes for gRPC: SerializeToOneSlice.
    grpc::Status Serialize(const google::protobuf::MessageLite& reply, grpc::ByteBuffer* reply_bytes) {
      return SerializeToOneSlice(reply, reply_bytes);
    }
    bool pooled() const { return entry_->pooled.has_value(); }

    ~Call() { owner_->End(std::move(entry_)); }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

   private:
    friend class SyncArenaReplies;
    Call(SyncArenaReplies* owner, std::unique_ptr<Entry> entry) : owner_(owner), entry_(std::move(entry)) {}
    SyncArenaReplies* const owner_;
    std::unique_ptr<Entry> entry_;
  };

  // On the handler's thread: an idle pooled arena (rebound to this thread), a new
  // pooled one while fewer than max_arenas exist, else a plain arena for this call.
  Call Begin() {
    calls_.fetch_add(1, std::memory_order_relaxed);
    std::unique_ptr<Entry> entry = idle_.Take();
    if (entry == nullptr) entry = NewEntry();
    if (entry->pooled) entry->pooled->BindToThisThread();  // empty: see the trap above
    return Call(this, std::move(entry));
  }

  SyncArenaRepliesStats stats() const {
    SyncArenaRepliesStats s;
    s.calls = calls_.load(std::memory_order_relaxed);
    s.arenas_created = arenas_created_.load(std::memory_order_relaxed);
    s.unpooled = unpooled_.load(std::memory_order_relaxed);
    s.overflows = overflows_.load(std::memory_order_relaxed);
    s.idle = idle_.idle();
    return s;
  }
  const SyncArenaRepliesOptions& options() const { return options_; }

  SyncArenaReplies(const SyncArenaReplies&) = delete;
  SyncArenaReplies& operator=(const SyncArenaReplies&) = delete;

 private:
  std::unique_ptr<Entry> NewEntry() {
    uint64_t made = arenas_created_.load(std::memory_order_relaxed);
    while (made < options_.max_arenas) {
      if (arenas_created_.compare_exchange_weak(made, made + 1, std::memory_order_relaxed)) {
        return std::make_unique<Entry>(options_.block_bytes);
      }
    }
    unpooled_.fetch_add(1, std::memory_order_relaxed);
    return std::make_unique<Entry>(0);
  }

  void End(std::unique_ptr<Entry> entry) {
    if (!entry->pooled) return;  // a plain arena: freed here with its blocks
    google::protobuf::Arena* arena = entry->arena();
    if (arena->SpaceAllocated() > options_.block_bytes) overflows_.fetch_add(1, std::memory_order_relaxed);
    // Frees long strings' characters and spilled blocks; keeps the block.
    arena->Reset();
    idle_.Give(std::move(entry));  // always kept: the pool has room for max_arenas
  }

  const SyncArenaRepliesOptions options_;
  IdlePool<Entry> idle_;
  std::atomic<uint64_t> calls_{0}, arenas_created_{0}, unpooled_{0}, overflows_{0};
};

// A synchronous service whose unary methods take and return bytes. Register it like
// any service; a method path it does not serve answers UNIMPLEMENTED, as usual. A
// generated service registered on the same server must not serve the same path.
class SyncRawService : public grpc::Service {
 public:
  using Handler = std::function<grpc::Status(grpc::ServerContext*, const grpc::ByteBuffer* request_bytes,
                                             grpc::ByteBuffer* reply_bytes)>;

  // method_path: "/package.Service/Method". The handler runs on gRPC's sync threads,
  // several at once; gRPC sends *reply_bytes after it returns (a status that is not
  // OK sends no reply).
  void AddUnary(std::string method_path, Handler handler) {
    paths_.push_back(std::make_unique<std::string>(std::move(method_path)));  // gRPC keeps the char*
    AddMethod(new grpc::internal::RpcServiceMethod(
        paths_.back()->c_str(), grpc::internal::RpcMethod::NORMAL_RPC,
        new grpc::internal::RpcMethodHandler<SyncRawService, grpc::ByteBuffer, grpc::ByteBuffer>(
            [h = std::move(handler)](SyncRawService*, grpc::ServerContext* context, const grpc::ByteBuffer* in,
                                     grpc::ByteBuffer* out) { return h(context, in, out); },
            this)));
  }

 private:
  std::vector<std::unique_ptr<std::string>> paths_;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_SYNC_ARENA_REPLY_H_
