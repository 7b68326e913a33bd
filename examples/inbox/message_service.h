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
// WatchInbox is not served: gRPC answers it UNIMPLEMENTED.
//
// Example:
//   inbox::MessageInboxService service;
//   inbox::PooledThreadPageAllocator allocator(inbox::PooledArenaOptionsForInbox());
//   service.SetMessageAllocatorFor_ListThreads(&allocator);   // pooled_arena only
//   builder.RegisterService(&service);
//
// Thread-safety: ListThreads runs on gRPC's threads, many at once; the service holds
// no state. The allocator must outlive the server.
#ifndef INBOX_EXAMPLE_MESSAGE_SERVICE_H_
#define INBOX_EXAMPLE_MESSAGE_SERVICE_H_

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
};

}  // namespace inbox

#endif  // INBOX_EXAMPLE_MESSAGE_SERVICE_H_
