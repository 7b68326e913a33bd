// SPDX-License-Identifier: Apache-2.0
// ArenaWriteReactor: a server-streaming callback reactor (grpc::ServerWriteReactor)
// that builds every message it writes on a pooled protobuf Arena with a reused
// initial block, and gives that arena back only once gRPC is done with the message.
//
// Why: a stream writes many messages. Built on the heap, each one mallocs every
// sub-message and repeated field and frees them again; built on a pooled BlockArena,
// a page of short-string messages that fits the block mallocs nothing once the pool
// is warm (proven on a real server in arena_write_reactor_test.cc).
//
// The trap, the lifetime rule: StartWrite() keeps a pointer to the message, and gRPC
// documents that it must not be deleted or changed until OnWriteDone. gRPC 1.51 often
// serializes inside StartWrite, but not for a StartWrite made before gRPC binds the
// reactor (in its constructor, as route_guide does), nor with a server interceptor
// that proceeds later: the test changes a page right after StartWrite returns and
// the client receives the changed page (StartWriteLifetimeTest; docs/patterns.md,
// section 7). So a page's arena goes back to the pool (Reset() then parked) in
// OnWriteDone and not one line earlier: a stream holds one arena while a write is in
// flight.
//
// The second trap: protobuf 3.21 gives an arena's initial block to the thread that
// last called Reset(). OnWriteDone resets on one gRPC thread and the next Take() may
// build on another, so NextWrite() re-binds the (empty) arena to the building thread
// (BlockArena::BindToThisThread); without it every page mallocs fresh blocks.
//
// Bounded: a stream holds at most one arena (the page in flight); at most
// IdlePool::capacity() idle arenas are kept, and one given back beyond that is
// deleted. Memory: (streams writing + capacity) * block_bytes, plus what a page
// larger than the block spills, which Reset() frees when the page is done.
//
// Example:
//   class FeedPages final : public ArenaWriteReactor<v1::FeedResponse> {
//    public:
//     FeedPages(IdlePool<BlockArena>* arenas, int pages)
//         : ArenaWriteReactor(arenas, /*block_bytes=*/64 * 1024), left_(pages) {
//       NextWrite();  // the first page; each OnWriteDone writes the next
//     }
//     bool NextPage(v1::FeedResponse* page) override {  // page: empty, on a pooled arena
//       if (left_-- == 0) return false;                   // false: Finish(OK)
//       Fill(page);
//       return true;
//     }
//    private:
//     int left_;
//   };
//   // In the service, with `IdlePool<BlockArena> arenas_{64};` beside it:
//   //   return new FeedPages(&arenas_, /*pages=*/3);
//
// Thread-safety: the pool (IdlePool) is shared by every stream and may be used from
// any thread. One reactor's NextPage() calls never overlap: each runs after the
// previous page's OnWriteDone. Nothing may touch the reactor after StartWrite() or
// Finish() returns (gRPC may already run OnWriteDone or OnDone elsewhere), and the
// pool must outlive every stream (shut the server down first).
//
// Copying it: needs block_arena.h and idle_pool.h beside it, protobuf and gRPC.
#ifndef ARENA_GRPC_PATTERNS_ARENA_WRITE_REACTOR_H_
#define ARENA_GRPC_PATTERNS_ARENA_WRITE_REACTOR_H_

#include <cstddef>
#include <memory>
#include <utility>

#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/status.h>

#include "block_arena.h"
#include "google/protobuf/arena.h"
#include "idle_pool.h"

namespace reco::patterns {

template <typename Response>
class ArenaWriteReactor : public grpc::ServerWriteReactor<Response> {
 public:
  // arenas: shared by every stream of the method, outlives them. block_bytes: the
  // initial block of an arena made when the pool has none idle.
  ArenaWriteReactor(IdlePool<BlockArena>* arenas, size_t block_bytes) : arenas_(arenas), block_bytes_(block_bytes) {}

  void OnWriteDone(bool ok) override {
    GiveBack();  // gRPC is done with the page: now, and only now, its arena is free
    if (!ok) {   // the client is gone or the call was cancelled: no more pages
      this->Finish(grpc::Status::CANCELLED);
      return;
    }
    NextWrite();
  }

  // gRPC calls it after every other reaction; each write has had its OnWriteDone,
  // so no arena is held here.
  void OnDone() override { delete this; }

 protected:
  // Fills `page` -- empty, on a pooled arena bound to this thread -- with the next
  // message and returns true, or returns false when the stream is complete (`page`
  // is then dropped unsent and the stream finishes with OK).
  virtual bool NextPage(Response* page) = 0;

  // Builds the next page and starts writing it, or finishes the stream. Call it once
  // at the end of the derived constructor; OnWriteDone calls it after that.
  void NextWrite() {
    arena_ = arenas_->Take();
    if (arena_ == nullptr) {
      arena_ = std::make_unique<BlockArena>(block_bytes_);  // its block is this thread's
    } else {
      arena_->BindToThisThread();  // last Reset() on another thread: see the trap above
    }
    Response* page = google::protobuf::Arena::CreateMessage<Response>(arena_->get());
    if (!NextPage(page)) {
      GiveBack();
      this->Finish(grpc::Status::OK);
      return;
    }
    this->StartWrite(page);  // the arena stays with this stream until OnWriteDone
  }

 private:
  // Reset() runs the page's registered destructors and frees what it spilled past
  // the block; the arena is then parked, or deleted when the pool is full.
  void GiveBack() {
    if (arena_ == nullptr) return;
    arena_->get()->Reset();
    arenas_->Give(std::move(arena_));
  }

  IdlePool<BlockArena>* const arenas_;
  const size_t block_bytes_;
  std::unique_ptr<BlockArena> arena_;  // the page in flight's; null between pages
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_ARENA_WRITE_REACTOR_H_
