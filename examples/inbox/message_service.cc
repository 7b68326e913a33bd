// SPDX-License-Identifier: Apache-2.0
// See message_service.h.
#include "message_service.h"

#include <algorithm>
#include <cstdint>

#include "arena_write_reactor.h"
#include "inbox_handler.h"
#include "server_stats.h"

namespace inbox {
namespace {

// WatchInbox's stream: thread 0, 1, ... of the request's page, each on a pooled arena.
class ThreadStream final : public reco::patterns::ArenaWriteReactor<v1::MailThread> {
 public:
  ThreadStream(reco::patterns::IdlePool<reco::patterns::BlockArena>* arenas, const v1::ListThreadsRequest& request)
      : ArenaWriteReactor(arenas, /*block_bytes=*/8 * 1024),
        threads_(std::min(ThreadsOnPage(request), kMaxThreads)),
        long_text_(request.long_text()) {
    NextWrite();
  }

 private:
  bool NextPage(v1::MailThread* thread) override {
    if (next_ == threads_) return false;
    FillMailThread(next_++, long_text_, thread);
    return true;
  }

  const uint32_t threads_;
  const bool long_text_;
  uint32_t next_ = 0;
};

// A stream that ends at once with `status`: a request WatchInbox refuses.
class Refused final : public grpc::ServerWriteReactor<v1::MailThread> {
 public:
  explicit Refused(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

reco::patterns::PooledArenaOptions PooledArenaOptionsForInbox() {
  reco::patterns::PooledArenaOptions options;
  // A 50-thread page takes well under this on an arena in either text length (long
  // strings keep only their std::string object there); larger pages spill into heap
  // blocks that Release() frees again.
  options.initial_block_bytes = 128 * 1024;
  options.max_arenas = 64;
  return options;
}

grpc::ServerUnaryReactor* MessageInboxService::ListThreads(grpc::CallbackServerContext* context,
                                                           const v1::ListThreadsRequest* request,
                                                           v1::ThreadPage* page) {
  grpc::Status status = CheckListThreadsRequest(*request);
  if (status.ok()) {
    // The handler's build, reported by the stats library (stats/server_stats.h) as
    // the build phase: this thread's allocations and time while `build` lives.
    reco::StatsBuildScope build;
    FillThreadPage(*request, page);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);  // gRPC serializes `page` after this returns
  return reactor;
}

grpc::ServerWriteReactor<v1::MailThread>* MessageInboxService::WatchInbox(grpc::CallbackServerContext*,
                                                                          const v1::ListThreadsRequest* request) {
  grpc::Status status = CheckListThreadsRequest(*request);
  if (!status.ok()) return new Refused(status);
  return new ThreadStream(&thread_arenas_, *request);
}

}  // namespace inbox
