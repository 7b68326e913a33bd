// SPDX-License-Identifier: Apache-2.0
// AsyncArenaMethod: a unary method served with gRPC's asynchronous completion-queue
// API (Service::AsyncService, RequestX, ServerAsyncResponseWriter), each call's
// request and response on a pooled arena with a reused initial block. The shape is
// gRPC's greeter_async_server.cc: one object per call, its address the tag, a new
// call armed as soon as one arrives.
//
// Why: the async API has no allocator hook -- you hand RequestX the request and
// Finish the response -- so this does by hand what a callback service's installed
// allocator does: at arming, a call takes its two messages from a
// grpc::MessageAllocator (PooledArenaAllocator: bounded, a call that finds every
// pooled arena in use gets a plain one, counted in stats().unpooled), and gives them
// back when it ends. The call's own object, its ServerContext and gRPC's per-call
// state stay heap allocations: the arena takes the messages off the heap, not the call.
//
// The trap (protobuf 3.21): an arena's initial block belongs to the thread that last
// called Reset(); any other thread that allocates on it gets fresh heap blocks.
// PooledArenaAllocator re-binds the block to the thread that takes it, so the thread
// that arms a call must be the thread that parses and builds it. gRPC parses the
// request on the thread that pulls the call's tag from the queue, so: one completion
// queue per thread (ServingThreads), and a call is armed only by the thread that
// serves its queue. Several threads on one queue still work, but a call armed on one
// and served on another builds its whole reply in fresh heap blocks.
//
// When the arena may be reset: once Finish's tag comes back, the contract gRPC
// documents. gRPC 1.51 has serialized the reply before Finish returns, so the wait
// costs only arena time (docs/patterns.md, section 6; FinishSerializationTest in
// async_arena_call_test.cc says if a later gRPC changes that).
//
// Example:
//   PooledArenaAllocator<FeedRequest, FeedResponse> arenas;   // 512 KiB blocks, at most 64
//   AsyncArenaMethod<Feed::AsyncService, FeedRequest, FeedResponse> get_feed(
//       &service, &Feed::AsyncService::RequestGetFeed, &arenas,
//       [](grpc::ServerContext*, const FeedRequest* request, FeedResponse* response) {
//         Fill(*request, response);   // on the call's arena
//         return grpc::Status::OK;
//       });
//   ServingThreads threads(&builder, /*count=*/2);   // before builder.BuildAndStart()
//   std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
//   threads.Start([&](ServingQueue* queue) { get_feed.Arm(queue); });
//   // ... serve ...
//   threads.Stop(server.get(), std::chrono::system_clock::now() + std::chrono::seconds(5));
//
// Per-call state (the fourth template argument, optional): a call may own a CallState
// of the caller's, made from the call's MessageHolder when the call is armed, handed to
// the handler, and destroyed when the call ends -- after its messages were released,
// before its ServerContext (whose grpc_call is still referenced then). reco_server
// keeps each call's reply-budget reservation there:
//   AsyncArenaMethod<Feed::AsyncService, FeedRequest, FeedResponse, Budgeted> m(
//       &service, &Feed::AsyncService::RequestGetFeed, &arenas,
//       [](grpc::ServerContext*, const FeedRequest*, FeedResponse*, Budgeted* state) { ... });
//
// Clients that leave: a handler runs on its queue's thread, and gRPC tells that a call
// was cancelled (AsyncNotifyWhenDone's tag) on the same queue, which nobody polls while
// the handler builds -- so a server would build every reply of a client that left.
// AsyncCallCancelled() polls the queue without waiting, keeps what it takes for after
// the handler, and says whether this call has ended for its client: ask it where a long
// build can stop (async_arena_call_test.cc).
//
// Nothing that points into a request or response may outlive its call: when the call
// ends its arena is Reset() and the next call builds at the same addresses. The
// handler runs on a queue's thread and must not block it.
//
// Copying it: needs pooled_arena_allocator.h, block_arena.h and idle_pool.h beside it,
// gRPC and protobuf; nothing else of this project.
//
// Thread-safety: each ServingQueue is served by one thread; Arm() it only from that
// thread (or from the function given to Start(), which runs there). The allocator,
// the method and the service must outlive Stop(), which returns once every call has
// ended and given its arena back.
#ifndef ARENA_GRPC_PATTERNS_ASYNC_ARENA_CALL_H_
#define ARENA_GRPC_PATTERNS_ASYNC_ARENA_CALL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "grpcpp/completion_queue.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/async_unary_call.h"
#include "grpcpp/support/message_allocator.h"
#include "grpcpp/support/status.h"
#include "pooled_arena_allocator.h"

namespace reco::patterns {

// What every tag on a ServingQueue points to: one call, told that its last operation
// completed (`ok` as CompletionQueue::Next reports it).
class AsyncTag {
 public:
  virtual void Proceed(bool ok) = 0;
  // The tag was taken off the queue while another call's handler runs (see
  // ServingQueue::TakeNotifications); Proceed(ok) follows once that handler returns.
  // Only what may be learnt at once belongs here: nothing is built, sent or freed.
  virtual void Notice(bool /*ok*/) {}

 protected:
  ~AsyncTag() = default;
};

// One server completion queue, served by one thread.
class ServingQueue {
 public:
  explicit ServingQueue(std::unique_ptr<grpc::ServerCompletionQueue> cq) : cq_(std::move(cq)) {}

  // Runs request(cq) -- one operation that will post a tag here: a RequestX, or a
  // call's Finish -- unless Shutdown() came first, and returns whether it ran. gRPC
  // requires that no work be put on a queue after its Shutdown(): a call whose tag was
  // taken just before the server stopped still re-arms, and a handler still building
  // when the server's shutdown deadline passed still finishes; 1.51 fails such a
  // request with ok false, but aborts the process on such a Finish ("assertion failed:
  // grpc_cq_begin_op", seen under ASan in server_rpc_test).
  template <typename RequestFn>
  bool Request(RequestFn&& request) {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) return false;
    request(cq_.get());
    return true;
  }

  // Hands every tag to its call until the queue is shut down and drained: first the
  // tags TakeNotifications() kept, in the order they came.
  void Serve() {
    void* tag = nullptr;
    bool ok = false;
    for (;;) {
      if (!kept_.empty()) {
        auto [kept, kept_ok] = kept_.front();
        kept_.pop_front();
        kept->Proceed(kept_ok);
      } else if (cq_->Next(&tag, &ok)) {
        static_cast<AsyncTag*>(tag)->Proceed(ok);
      } else {
        return;
      }
    }
  }

  // From a handler running on this queue's thread: takes the tags already on the queue
  // without waiting, tells each (Notice) and keeps it for Serve(). This is how a
  // handler learns, while it builds, that its call was cancelled: gRPC delivers that
  // (AsyncNotifyWhenDone's tag) on this queue, and drives the connection's reads only
  // while someone polls it. At most once a millisecond, a poll costs a system call,
  // except the first for each call (`first_of_call`), so that short builds poll too.
  void TakeNotifications(bool first_of_call = false) {
    const auto now = std::chrono::steady_clock::now();
    if (!first_of_call && now - last_take_ < std::chrono::milliseconds(1)) return;
    last_take_ = now;
    void* tag = nullptr;
    bool ok = false;
    while (cq_->AsyncNext(&tag, &ok, std::chrono::system_clock::time_point()) == grpc::CompletionQueue::GOT_EVENT) {
      static_cast<AsyncTag*>(tag)->Notice(ok);
      kept_.emplace_back(static_cast<AsyncTag*>(tag), ok);
    }
  }

  // After the server's Shutdown(): nothing is armed on the queue from now on.
  void Shutdown() {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
    cq_->Shutdown();
  }

 private:
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::mutex mu_;
  bool shut_down_ = false;
  // The serving thread's own: tags taken during a handler, and when it last polled.
  std::deque<std::pair<AsyncTag*, bool>> kept_;
  std::chrono::steady_clock::time_point last_take_;
};

// `count` completion queues, each with its own thread. Once started, Stop() it before
// it is destroyed.
class ServingThreads {
 public:
  // Adds the queues to `builder`: before builder.BuildAndStart().
  ServingThreads(grpc::ServerBuilder* builder, int count) {
    for (int i = 0; i < count; ++i) queues_.push_back(std::make_unique<ServingQueue>(builder->AddCompletionQueue()));
  }

  // Starts the threads. Each runs arm(its queue) -- arming the first call of every
  // method there, on the thread that will serve them -- then serves its queue.
  // Returns once every thread has armed: from then on each queue has its calls
  // waiting, and what they took at arming (an arena each) is in use.
  void Start(std::function<void(ServingQueue*)> arm) {
    std::mutex mu;
    std::condition_variable all_armed;
    size_t armed = 0;
    for (auto& queue : queues_) {
      threads_.emplace_back([&, queue = queue.get()] {
        arm(queue);
        {
          // Notified under the lock: Start cannot return (and its locals go) before
          // this thread is done with them.
          std::lock_guard<std::mutex> lock(mu);
          ++armed;
          all_armed.notify_one();
        }
        queue->Serve();
      });
    }
    std::unique_lock<std::mutex> lock(mu);
    all_armed.wait(lock, [&] { return armed == queues_.size(); });
  }

  // Shuts `server` down (calls still running at `deadline` are cancelled; armed calls
  // end with ok false), then the queues, and waits for the threads to drain them:
  // every call has ended when it returns.
  void Stop(grpc::Server* server, std::chrono::system_clock::time_point deadline) {
    server->Shutdown(deadline);
    for (auto& queue : queues_) queue->Shutdown();
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  std::vector<std::unique_ptr<ServingQueue>> queues_;
  std::vector<std::thread> threads_;
};

namespace async_arena_call_internal {
// The call whose handler runs on this thread, while it runs (AsyncCallCancelled).
struct RunningCall {
  ServingQueue* queue;
  grpc::ServerContext* context;
  const bool* done;    // AsyncNotifyWhenDone's tag came back
  bool asked = false;  // AsyncCallCancelled() was called for it
};
inline thread_local RunningCall* running_call = nullptr;

// The handler's type: without a CallState, (context, request, response).
template <typename Request, typename Response, typename CallState>
struct HandlerOf {
  using type = std::function<grpc::Status(grpc::ServerContext*, const Request*, Response*, CallState*)>;
};
template <typename Request, typename Response>
struct HandlerOf<Request, Response, void> {
  using type = std::function<grpc::Status(grpc::ServerContext*, const Request*, Response*)>;
};
// What a call without a CallState keeps: nothing.
struct NoCallState {
  template <typename Holder>
  explicit NoCallState(Holder*) {}
};
}  // namespace async_arena_call_internal

// From inside a handler that AsyncArenaMethod runs: true once the call has ended for
// its client -- cancelled, its connection gone, or its deadline passed as gRPC saw it
// -- so the reply would reach nobody. Takes the queue's notifications first (the first
// time for each call, then at most once a millisecond: ServingQueue::TakeNotifications).
// False outside such a handler.
// Call it where a long build can stop, e.g. every few items.
inline bool AsyncCallCancelled() {
  async_arena_call_internal::RunningCall* call = async_arena_call_internal::running_call;
  if (call == nullptr) return false;
  call->queue->TakeNotifications(/*first_of_call=*/!call->asked);
  call->asked = true;
  // IsCancelled() on an async call is defined once the done tag is back (server_context.h).
  return *call->done && call->context->IsCancelled();
}

// One unary method: arms calls, runs the handler, finishes them, gives arenas back.
template <typename Service, typename Request, typename Response, typename CallState = void>
class AsyncArenaMethod {
 public:
  // Service::RequestX, as protoc generates it for the method.
  using RequestMethod = void (Service::*)(grpc::ServerContext*, Request*, grpc::ServerAsyncResponseWriter<Response>*,
                                          grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*);
  // Builds the reply into `response` (on the call's arena); the status is sent with it.
  // With a CallState, the call's own is its last argument.
  using Handler = typename async_arena_call_internal::HandlerOf<Request, Response, CallState>::type;

  AsyncArenaMethod(Service* service, RequestMethod request_method, grpc::MessageAllocator<Request, Response>* allocator,
                   Handler handler)
      : service_(service), request_method_(request_method), allocator_(allocator), handler_(std::move(handler)) {}

  // Waits for one call on `queue`. Only on the thread that serves `queue`: the call's
  // arena is taken, and its block bound, here (see the trap above).
  void Arm(ServingQueue* queue) {
    auto* call = new Call(this, queue);
    const bool armed = queue->Request([&](grpc::ServerCompletionQueue* cq) {
      (service_->*request_method_)(&call->context_, call->messages_->request(), &call->responder_, cq, cq, call);
    });
    if (!armed) delete call;  // the queue is shutting down
  }

 private:
  class Call final : public AsyncTag {
   public:
    Call(AsyncArenaMethod* method, ServingQueue* queue)
        : method_(method), queue_(queue), messages_(method->allocator_->AllocateMessages()) {
      context_.AsyncNotifyWhenDone(&done_tag_);  // before the call is requested
    }

    void Proceed(bool ok) override {
      // Not ok: no call came (the server is stopping) or the reply was not sent (the
      // call was cancelled). Finishing: Finish's tag is back, gRPC is done with it.
      if (!ok || finishing_) {
        Unref();
        return;
      }
      ++refs_;               // a call came: its done tag will come back too, once
      method_->Arm(queue_);  // the next call, before this one's work (as the greeter)
      finishing_ = true;
      const grpc::Status status = RunHandler();
      const bool finishing = queue_->Request(
          [&](grpc::ServerCompletionQueue*) { responder_.Finish(*messages_->response(), status, this); });
      // The arena stays ours until this tag comes back (see "When the arena may be
      // reset" above). Not finishing: the queue is shut down, so the server's
      // Shutdown() has returned and cancelled the call; only its done tag will come.
      if (!finishing) Unref();
    }

   private:
    friend class AsyncArenaMethod;
    using State = std::conditional_t<std::is_void_v<CallState>, async_arena_call_internal::NoCallState, CallState>;

    // AsyncNotifyWhenDone's tag: the call has ended for gRPC (cancelled, or finished).
    class DoneTag final : public AsyncTag {
     public:
      explicit DoneTag(Call* call) : call_(call) {}
      void Notice(bool) override { call_->done_ = true; }
      void Proceed(bool) override {
        call_->done_ = true;
        call_->Unref();
      }

     private:
      Call* const call_;
    };

    // Reset() here, on the serving thread; back to the pool. state_ goes next, then
    // the context.
    ~Call() { messages_->Release(); }

    // The call goes once both its own tag and (if a call came) its done tag are back.
    void Unref() {
      if (--refs_ == 0) delete this;
    }

    grpc::Status RunHandler() {
      async_arena_call_internal::RunningCall running{queue_, &context_, &done_};
      async_arena_call_internal::running_call = &running;
      struct Clear {
        ~Clear() { async_arena_call_internal::running_call = nullptr; }
      } clear;
      if constexpr (std::is_void_v<CallState>) {
        return method_->handler_(&context_, messages_->request(), messages_->response());
      } else {
        return method_->handler_(&context_, messages_->request(), messages_->response(), &state_);
      }
    }

    AsyncArenaMethod* const method_;
    ServingQueue* const queue_;
    grpc::MessageHolder<Request, Response>* const messages_;
    grpc::ServerContext context_;
    grpc::ServerAsyncResponseWriter<Response> responder_{&context_};
    State state_{messages_};  // after the context: destroyed before it
    bool finishing_ = false;
    DoneTag done_tag_{this};
    bool done_ = false;
    int refs_ = 1;  // this object's own tag; 2 once a call came (its done tag)
  };

  Service* const service_;
  const RequestMethod request_method_;
  grpc::MessageAllocator<Request, Response>* const allocator_;
  const Handler handler_;
};

}  // namespace reco::patterns

#endif  // ARENA_GRPC_PATTERNS_ASYNC_ARENA_CALL_H_
