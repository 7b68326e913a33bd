// StatsService: reco.v1.ServerStats/GetStats on the callback API, served on the same
// port as Recommender. It answers from a StatsSnapshotter (see proto/stats.proto for
// what every field means). Reading is open to anyone who reaches the port; a reset
// only when the server allows it.
//
// Example:
//   reco::StatsService stats(&snapshotter, /*allow_reset=*/false);
//   builder.RegisterService(&stats);
//
// Thread-safety: GetStats runs on gRPC's threads; the snapshotter serializes
// snapshots. The snapshotter must outlive the server.
#ifndef ARENA_GRPC_SERVER_STATS_SERVICE_H_
#define ARENA_GRPC_SERVER_STATS_SERVICE_H_

#include "proto/stats.grpc.pb.h"
#include "server/stats_snapshotter.h"

namespace reco {

class StatsService final : public v1::ServerStats::CallbackService {
 public:
  // allow_reset false: GetStats(reset=true) is refused PERMISSION_DENIED (the
  // --allow_stats_reset flag); reading stays open.
  StatsService(StatsSnapshotter* snapshotter, bool allow_reset)
      : snapshotter_(snapshotter), allow_reset_(allow_reset) {}

  grpc::ServerUnaryReactor* GetStats(grpc::CallbackServerContext* context, const v1::GetStatsRequest* request,
                                     v1::StatsSnapshot* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (request->reset() && !allow_reset_) {
      reactor->Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                   "GetStats(reset=true) is off on this server (start it with --allow_stats_reset): "
                                   "a reset restarts the stats window for every reader; take the difference of two "
                                   "snapshots instead"));
      return reactor;
    }
    *response = snapshotter_->Snapshot(request->reset());
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  StatsSnapshotter* const snapshotter_;
  const bool allow_reset_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_STATS_SERVICE_H_
