// StatsService: reco.v1.ServerStats/GetStats on the callback API, served on the same
// port as Recommender. It answers from a StatsSnapshotter (see proto/stats.proto for
// what every field means).
//
// Example:
//   reco::StatsService stats(&snapshotter);
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
  explicit StatsService(StatsSnapshotter* snapshotter) : snapshotter_(snapshotter) {}

  grpc::ServerUnaryReactor* GetStats(grpc::CallbackServerContext* context, const v1::GetStatsRequest* request,
                                     v1::StatsSnapshot* response) override {
    *response = snapshotter_->Snapshot(request->reset());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  StatsSnapshotter* const snapshotter_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_STATS_SERVICE_H_
