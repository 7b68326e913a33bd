// StatsService: reco.v1.ServerStats/GetStats on the callback API, served on the same
// port as Recommender. It answers from a StatsWindow (see proto/stats.proto for what
// every field means).
//
// Example:
//   reco::StatsService stats(&window);
//   builder.RegisterService(&stats);
//
// Thread-safety: GetStats runs on gRPC's threads; the window serializes snapshots.
// The window must outlive the server.
#ifndef ARENA_GRPC_SERVER_STATS_SERVICE_H_
#define ARENA_GRPC_SERVER_STATS_SERVICE_H_

#include "proto/stats.grpc.pb.h"
#include "server/stats_window.h"

namespace reco {

class StatsService final : public v1::ServerStats::CallbackService {
 public:
  explicit StatsService(StatsWindow* window) : window_(window) {}

  grpc::ServerUnaryReactor* GetStats(grpc::CallbackServerContext* context, const v1::GetStatsRequest* request,
                                     v1::StatsSnapshot* response) override {
    *response = window_->Snapshot(request->reset());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  StatsWindow* const window_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_STATS_SERVICE_H_
