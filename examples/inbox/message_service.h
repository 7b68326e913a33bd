// SPDX-License-Identifier: Apache-2.0
// MessageInboxService: inbox.v1.Inbox/ListThreads answered by building a ThreadPage
// message with FillThreadPage (inbox_handler.h) -- the `heap` and `pooled_arena`
// variants of inbox_server are this one class.
//
//   heap:          gRPC's default messages: no protobuf Arena, so every thread,
//                  participant and string is its own heap object.
//   pooled_arena:  the same handler with patterns/pooled_arena_allocator.h installed
//                  (InstallPooledArena): the page is built on a pooled arena whose
//                  reused block holds a 50-thread page in either text length.
//
// WatchInbox streams the threads of the page ListThreads would answer, one message
// each (FillMailThread), every message built on a pooled arena with
// patterns/arena_write_reactor.h copied as it is; a request ListThreads would refuse
// is refused the same way.
//
// Example:
//   inbox::MessageInboxService service;
//   inbox::PooledThreadPageAllocator allocator(inbox::PooledArenaOptionsForInbox());
//   service.SetMessageAllocatorFor_ListThreads(&allocator);   // pooled_arena only
//   builder.RegisterService(&service);
//
// Thread-safety: both methods run on gRPC's threads, many at once; the service holds
// only WatchInbox's pool of arenas, which is shared safely. The allocator and the
// service must outlive the server.
#ifndef INBOX_EXAMPLE_MESSAGE_SERVICE_H_
#define INBOX_EXAMPLE_MESSAGE_SERVICE_H_

#include "block_arena.h"
#include "idle_pool.h"
#include "inbox.grpc.pb.h"
#include "pooled_arena_allocator.h"

namespace inbox {

using PooledThreadPageAllocator = reco::patterns::PooledArenaAllocator<v1::ListThreadsRequest, v1::ThreadPage>;

// The pooled arena's options for this service: a block that holds a 50-thread page of
// long text without growing (inbox_allocations_test proves it), at most 64 arenas.
reco::patterns::PooledArenaOptions PooledArenaOptionsForInbox();

class MessageInboxService final : public v1::Inbox::CallbackService {
 public:
  grpc::ServerUnaryReactor* ListThreads(grpc::CallbackServerContext* context, const v1::ListThreadsRequest* request,
                                        v1::ThreadPage* page) override;
  grpc::ServerWriteReactor<v1::MailThread>* WatchInbox(grpc::CallbackServerContext* context,
                                                       const v1::ListThreadsRequest* request) override;

 private:
  reco::patterns::IdlePool<reco::patterns::BlockArena> thread_arenas_{64};  // WatchInbox's, one per message in flight
};

}  // namespace inbox

#endif  // INBOX_EXAMPLE_MESSAGE_SERVICE_H_
