// SPDX-License-Identifier: Apache-2.0
// See message_service.h.
#include "message_service.h"

#include "inbox_handler.h"
#include "server_stats.h"

namespace inbox {

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

}  // namespace inbox
