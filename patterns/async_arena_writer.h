// SPDX-License-Identifier: Apache-2.0
// AsyncArenaWriter: one server-streaming call on a completion queue
// (grpc::ServerAsyncWriter), shaped like the CallData of gRPC's route_guide async
// example, whose every message is built on a pooled protobuf Arena with a reused
// initial block. SendFromPooledArena() is the arena part on its own.
//
// Why: as arena_write_reactor.h -- a page of short-string messages built on a warm
// pooled BlockArena mallocs nothing (proven on a real server in
// async_arena_writer_test.cc), where a heap-built page mallocs every sub-message.
//
// The lifetime rule differs from the callback API's. ServerAsyncWriter::Write copies:
// gRPC documents that it takes no reference to the message ("safe to deallocate once
// Write returns"), and gRPC 1.51 serializes inside Write, so even an interceptor that
// proceeds later is handed bytes. The test resets the arena and builds another
// message at the same address right after Write returns, with and without such an
// interceptor, and every page arrives intact. So the arena goes back to the pool as
// soon as Write returns: the pool needs one arena per thread building at once, not
// one per stream. (ServerWriteReactor::StartWrite keeps a pointer instead:
// arena_write_reactor.h.)
//
// The trap: protobuf 3.21 gives an arena's initial block to the thread that last
// called Reset(). With several threads serving completion queues, an arena reset on
// one is taken on another, so SendFromPooledArena re-binds the (empty) arena to the
// building thread (BlockArena::BindToThisThread); without it every page mallocs.
//
// Bounded: an arena is out of the pool only while one page is built and written; at
// most IdlePool::capacity() idle arenas are kept, one given back beyond that is
// deleted.
//
// Example:
//   class FeedWriter final : public AsyncArenaWriter<v1::FeedRequest, v1::FeedResponse> {
//    public:
//     FeedWriter(v1::Feed::AsyncService* service, grpc::ServerCompletionQueue* cq,
//                IdlePool<BlockArena>* arenas)
//         : AsyncArenaWriter(arenas, /*block_bytes=*/64 * 1024), service_(service), cq_(cq) {}
//     void RequestCall() override {
//       service_->RequestStreamFeed(context(), request(), writer(), cq_, cq_, this);
//     }
//     void SpawnNext() override { (new FeedWriter(service_, cq_, arenas()))->Start(); }
//     bool NextPage(v1::FeedResponse* page) override {  // page: empty, on a pooled arena
//       if (sent_ == request()->post_count()) return false;  // false: Finish(OK)
//       Fill(page);
//       ++sent_;
//       return true;
//     }
//    private:
//     v1::Feed::AsyncService* service_;
//     grpc::ServerCompletionQueue* cq_;
//     uint32_t sent_ = 0;
//   };
//   // Once: (new FeedWriter(&service, cq.get(), &arenas))->Start(); then the loop:
//   //   while (cq->Next(&tag, &ok)) static_cast<FeedWriter*>(tag)->Proceed(ok);
//
// Thread-safety: the pool may be shared by every call and thread. A call's
// Proceed() runs for one event at a time (one write or finish is outstanding);
// nothing touches the call after it has asked gRPC for its next event. The pool must
// outlive every call (shut the server and its queues down first).
//
// Copying it: needs block_arena.h and idle_pool.h beside it, protobuf and gRPC.
#ifndef ARENA_GRPC_PATTERNS_ASYNC_ARENA_WRITER_H_
#define ARENA_GRPC_PATTERNS_ASYNC_ARENA_WRITER_H_

#include <cstddef>
#include <memory>
#include <utility>

#include <grpcpp/server_context.h>
#include <grpcpp/support/async_stream.h>
#include <grpcpp/support/status.h>

#include "block_arena.h"
#include "google/protobuf/arena.h"
#include "idle_pool.h"

namespace reco::patterns {

// Builds a Message on an arena from `arenas` (a new one of block_bytes when none is
// idle), bound to this thread: fill(Message*) fills it and returns whether there is
// anything to send; if so, send(const Message&) gets it, and must be done with it
// when it returns (ServerAsyncWriter::Write is). Then the arena is Reset() -- the
// message dies -- and parked. Returns what fill returned.
template <typename Message, typename Fill, typename Send>
bool SendFromPooledArena(IdlePool<BlockArena>* arenas, size_t block_bytes, Fill&& fill, Send&& send) {
  std::unique_ptr<BlockArena> arena = arenas->Take();
  if (arena == nullptr) {
    arena = std::make_unique<BlockArena>(block_bytes);  // its block is this thread's
  } else {
    arena->BindToThisThread();  // last Reset() maybe on another thread: the trap above
  }
  Message* message = google::protobuf::Arena::CreateMessage<Message>(arena->get());
  const bool filled = fill(message);
  if (filled) send(*message);
  arena->get()->Reset();  // runs registered destructors, frees what spilled past the block
  arenas->Give(std::move(arena));
  return filled;
}

template <typename Request, typename Response>
class AsyncArenaWriter {
 public:
  // arenas: shared by every call, outlives them. block_bytes: the initial block of an
  // arena made when the pool has none idle.
  AsyncArenaWriter(IdlePool<BlockArena>* arenas, size_t block_bytes)
      : arenas_(arenas), block_bytes_(block_bytes), writer_(&context_) {}
  virtual ~AsyncArenaWriter() = default;

  // Waits for a call of the method (RequestCall()). Call it once the object is built.
  void Start() {
    state_ = State::kWaiting;
    RequestCall();
  }

  // The completion-queue loop calls this for every event tagged with this object,
  // with the `ok` that CompletionQueue::Next gave.
  void Proceed(bool ok) {
    switch (state_) {
      case State::kWaiting:
        if (!ok) {  // the server is shutting down: no call came
          delete this;
          return;
        }
        SpawnNext();  // someone must wait for the method's next call
        state_ = State::kWriting;
        WriteNext();
        return;
      case State::kWriting:
        if (!ok) {  // the client is gone or the call was cancelled: no more pages
          state_ = State::kFinishing;
          writer_.Finish(grpc::Status::CANCELLED, this);
          return;
        }
        WriteNext();
        return;
      case State::kFinishing:
        delete this;
        return;
    }
  }

 protected:
  // Asks gRPC for the next call of the method with this object as the tag:
  // service->RequestX(context(), request(), writer(), cq, cq, this).
  virtual void RequestCall() = 0;
  // Makes and Start()s the object that waits for the method's next call.
  virtual void SpawnNext() = 0;
  // Fills `page` -- empty, on a pooled arena bound to this thread -- with the next
  // message and returns true, or returns false when the stream is complete (`page`
  // is then dropped unsent and the call finishes with OK).
  virtual bool NextPage(Response* page) = 0;

  grpc::ServerContext* context() { return &context_; }
  Request* request() { return &request_; }
  grpc::ServerAsyncWriter<Response>* writer() { return &writer_; }
  IdlePool<BlockArena>* arenas() const { return arenas_; }
  size_t block_bytes() const { return block_bytes_; }

 private:
  enum class State { kWaiting, kWriting, kFinishing };

  void WriteNext() {
    // Write serializes the page before it returns, so the arena is back in the pool
    // when SendFromPooledArena returns. After Write, nothing of this object is
    // touched: its tag may already be in another thread's Proceed().
    const bool wrote = SendFromPooledArena<Response>(
        arenas_, block_bytes_, [this](Response* page) { return NextPage(page); },
        [this](const Response& page) { writer_.Write(page, this); });
    if (!wrote) {
      state_ = State::kFinishing;
      writer_.Finish(grpc::Status::OK, this);
    }
  }

  IdlePool<BlockArena>* const arenas_;
  const size_t block_bytes_;
  grpc::ServerContext context_;
  Request request_;
  grpc::ServerAsyncWriter<Response> writer_;
  State state_ = State::kWaiting;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_ASYNC_ARENA_WRITER_H_
