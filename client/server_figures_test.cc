#include "client/server_figures.h"

#include "core/histogram_proto.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

v1::StatsSnapshot Snapshot(uint64_t rpcs, uint64_t build_allocs, double cpu, const LatencyHistogram& build_latency) {
  v1::StatsSnapshot s;
  s.set_mode("heap");
  s.set_malloc("glibc");
  s.set_pid(42);
  s.set_rpcs(rpcs);
  s.mutable_build()->mutable_allocations()->set_allocs(build_allocs);
  s.mutable_build()->mutable_allocations()->set_bytes(build_allocs * 10);
  s.mutable_process_allocations()->set_allocs(build_allocs * 2);
  HistogramToProto(build_latency, s.mutable_build()->mutable_latency());
  s.set_cpu_user_seconds(cpu);
  s.set_rss_bytes(rpcs * 1000);
  s.set_peak_rss_bytes(rpcs * 2000);
  s.mutable_store()->set_released(rpcs);
  s.mutable_store()->set_arena_space_allocated(rpcs * 500);
  return s;
}

TEST(ServerFigures, SubtractsTotalsAndHistogramsKeepsGauges) {
  LatencyHistogram early, late;
  for (int i = 0; i < 100; ++i) early.Record(1000);
  late = early;
  for (int i = 0; i < 100; ++i) late.Record(50000);
  ServerFigures w = ServerFiguresBetween(Snapshot(100, 7000, 1.0, early), Snapshot(300, 21000, 1.5, late));
  ASSERT_TRUE(w.available);
  EXPECT_EQ(w.rpcs, 200u);
  EXPECT_EQ(w.build.allocations.allocs, 14000u);
  EXPECT_DOUBLE_EQ(w.PerRpc(w.build.allocations.allocs), 70.0);
  EXPECT_DOUBLE_EQ(w.PerRpc(w.process.allocs), 140.0);
  EXPECT_NEAR(w.CpuMicrosPerRpc(), 0.5e6 / 200, 1e-6);
  // Only the window's samples (all 50 us) remain in the difference.
  EXPECT_EQ(w.build.latency.count(), 100u);
  EXPECT_NEAR(static_cast<double>(w.build.latency.Percentile(50)), 50000, 500);
  EXPECT_EQ(w.rss_bytes, 300000u);
  EXPECT_DOUBLE_EQ(w.PerRelease(w.arena_space_allocated), 500.0);
}

TEST(ServerFigures, MergeAddsTotalsAndKeepsTheLatestGauges) {
  LatencyHistogram h;
  h.Record(2000);
  ServerFigures a = ServerFiguresBetween(Snapshot(0, 0, 0, LatencyHistogram()), Snapshot(10, 100, 0.1, h));
  ServerFigures b = ServerFiguresBetween(Snapshot(10, 100, 0.1, h), Snapshot(40, 400, 0.2, h));
  a.Merge(b);
  EXPECT_EQ(a.rpcs, 40u);
  EXPECT_EQ(a.build.allocations.allocs, 400u);
  EXPECT_EQ(a.build.latency.count(), 1u);
  EXPECT_EQ(a.rss_bytes, 40000u);
  EXPECT_EQ(a.peak_rss_bytes, 80000u);
}

TEST(ServerFigures, UnavailableFiguresKeepTheirReason) {
  ServerFigures w = UnavailableServerFigures("no stats service");
  EXPECT_FALSE(w.available);
  ServerFigures total;
  total.Merge(w);
  EXPECT_FALSE(total.available);
  EXPECT_EQ(total.note, "no stats service");
  EXPECT_EQ(total.PerRpc(5), 0.0);
}

TEST(ServerFigures, AddReplicaSumsTotalsAndGaugesOverOneWindow) {
  LatencyHistogram none;
  ServerFigures a = ServerFiguresBetween(Snapshot(100, 7000, 1.0, none), Snapshot(300, 21000, 1.5, none));
  ServerFigures b = ServerFiguresBetween(Snapshot(0, 0, 0.0, none), Snapshot(100, 7000, 0.25, none));
  a.seconds = 2.0;
  b.seconds = 2.5;
  ServerFigures fleet;
  fleet.AddReplica(a, "127.0.0.1:1");
  fleet.AddReplica(b, "127.0.0.1:2");
  ASSERT_TRUE(fleet.available);
  EXPECT_EQ(fleet.rpcs, 300u);
  EXPECT_EQ(fleet.build.allocations.allocs, 14000u + 7000u);
  EXPECT_DOUBLE_EQ(fleet.cpu_user_seconds, 0.75);
  EXPECT_DOUBLE_EQ(fleet.seconds, 2.5) << "replicas ran at the same time: the window is not summed";
  EXPECT_EQ(fleet.rss_bytes, 300u * 1000 + 100u * 1000) << "the fleet's memory is the sum of its processes'";
  EXPECT_EQ(fleet.peak_rss_bytes, 300u * 2000 + 100u * 2000);
}

TEST(ServerFigures, AddReplicaWithOneUnavailableIsUnavailableNamingIt) {
  LatencyHistogram none;
  ServerFigures up = ServerFiguresBetween(Snapshot(0, 0, 0.0, none), Snapshot(100, 7000, 0.25, none));
  ServerFigures fleet;
  fleet.AddReplica(up, "127.0.0.1:1");
  fleet.AddReplica(UnavailableServerFigures("deadline exceeded"), "127.0.0.1:2");
  fleet.AddReplica(up, "127.0.0.1:3");
  EXPECT_FALSE(fleet.available);
  EXPECT_EQ(fleet.note, "replica 127.0.0.1:2: deadline exceeded");
}

// The stats library preloaded into a binary cannot count RPCs: the per-RPC figures
// divide by the client's completed calls instead, and say so. A server whose counter
// was not the malloc in use sends no process allocations: they are not counted, not 0.
TEST(ServerFigures, PreloadedLibraryIsDividedByTheClientsCalls) {
  LatencyHistogram none;
  v1::StatsSnapshot before = Snapshot(0, 0, 1.0, none), after = Snapshot(0, 0, 3.0, none);
  before.set_rpcs_not_counted(true);
  after.set_rpcs_not_counted(true);
  after.set_source("reco_server_stats_preload");
  after.mutable_process_allocations()->set_allocs(5000);
  ServerFigures w = ServerFiguresBetween(before, after);
  EXPECT_TRUE(w.rpcs_from_client);
  EXPECT_EQ(w.source, "reco_server_stats_preload");
  w.CountRpcsByClient(1000);
  EXPECT_EQ(w.rpcs, 1000u);
  EXPECT_DOUBLE_EQ(w.PerRpc(w.process.allocs), 5.0);
  EXPECT_NEAR(w.CpuMicrosPerRpc(), 2e6 / 1000, 1e-6);
  EXPECT_NE(w.note.find("client completed"), std::string::npos) << w.note;

  ServerFigures counted = ServerFiguresBetween(Snapshot(10, 0, 1.0, none), Snapshot(30, 0, 1.0, none));
  counted.CountRpcsByClient(999);  // the server counted its own: kept
  EXPECT_EQ(counted.rpcs, 20u);
  EXPECT_TRUE(counted.process_counted);
  v1::StatsSnapshot unmeasured = Snapshot(30, 0, 1.0, none);
  unmeasured.clear_process_allocations();
  EXPECT_FALSE(ServerFiguresBetween(Snapshot(10, 0, 1.0, none), unmeasured).process_counted);
}

}  // namespace
}  // namespace reco
