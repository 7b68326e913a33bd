// ServerFigures: what a server measured about itself during one measured window,
// from two reco.v1.ServerStats snapshots taken at the window's edges.
//
// Totals (RPCs, allocations, CPU time, arena space) are the differences between the
// snapshots; the phase histograms are subtracted bucket by bucket
// (core/histogram_proto.h), so their percentiles are the window's own. Gauges
// (resident memory, glibc's free bytes) are the values at the window's end; the peak
// resident size is the server's own (since it started or last reset its window).
// Figures of the same target merge (over rounds): totals add, gauges keep the
// latest, peaks the max. Figures of a target's replicas over ONE window combine with
// AddReplica: totals add too, the window is the longest replica's (they ran at the
// same time), and gauges and peaks ADD: the fleet's resident memory is the sum of
// its processes' (the summed peaks are an upper bound: each replica peaked at its
// own moment).
// Per-RPC figures divide by the RPCs the SERVER answered in the window, so they do
// not depend on how the client's window lines up with the server's -- except for a
// server that cannot count them (StatsSnapshot.rpcs_not_counted: the stats library
// preloaded into a binary), whose figures divide by the client's completed calls.
//
// Example:
//   reco::ServerFigures w = reco::ServerFiguresBetween(before, after);
//   w.PerRpc(w.build.allocations.allocs)   // mallocs to build one response
//
// Thread-safety: none; plain values.
#ifndef ARENA_GRPC_CLIENT_SERVER_FIGURES_H_
#define ARENA_GRPC_CLIENT_SERVER_FIGURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/allocation_counter.h"
#include "core/latency_histogram.h"
#include "proto/stats.pb.h"

namespace reco {

struct ServerPhase {
  LatencyHistogram latency;
  AllocationCounts allocations;
};

struct ServerFigures {
  // False when the target has no ServerStats service, or a snapshot failed; `note`
  // says which.
  bool available = false;
  std::string note;

  std::string mode, malloc, protobuf_version, grpc_version;
  int64_t pid = 0;
  double seconds = 0;  // the server's own measure of the window
  uint64_t rpcs = 0;
  uint64_t rpc_errors = 0;
  uint64_t rpc_over_budget = 0;  // of rpc_errors: refused by the reply budget
  uint64_t rpc_abandoned = 0;    // of rpc_errors: the caller stopped waiting mid-build
  bool budget_enabled = false;
  uint64_t budget_capacity_bytes = 0;
  uint64_t budget_peak_bytes = 0;  // the server's own window (since its start or last reset)
  uint64_t trims = 0;              // malloc_trim calls in the window
  double trim_seconds = 0;
  ServerPhase build, serialize, release;
  AllocationCounts process;  // every allocation of the server process
  // False when the server could not count them (another malloc came before its
  // counter): the process allocation figures are then n/a, not 0.
  bool process_counted = true;
  // Who filled the snapshots: "reco_server", "reco_server_stats" (the stats library in
  // a user's server), "reco_server_stats_preload"; empty from older servers.
  std::string source;
  // The server could not count its RPCs (the preload library): `rpcs` is the replies
  // the CLIENT completed in the window (CountRpcsByClient), and `note` says so.
  bool rpcs_from_client = false;
  double cpu_user_seconds = 0;
  double cpu_system_seconds = 0;
  uint64_t rss_bytes = 0;
  uint64_t peak_rss_bytes = 0;
  bool malloc_heap_available = false;
  uint64_t heap_arena_bytes = 0;
  uint64_t heap_in_use_bytes = 0;
  uint64_t heap_free_bytes = 0;  // glibc's free chunks: fragmentation held
  uint64_t released = 0;         // leases released (responses freed) in the window
  uint64_t arena_space_allocated = 0;
  uint64_t arena_space_used = 0;
  uint64_t arena_overflows = 0;
  // The server reports a pool (StatsSnapshot.store: reco_server's store, or a pool
  // given to the stats library), and its leases that found every pooled object in
  // use in the window.
  bool store_available = false;
  uint64_t unpooled = 0;

  void Merge(const ServerFigures& later);
  // Adds a replica's figures of the same window (see above). An unavailable replica
  // makes the sum unavailable: a part of the fleet would pass for all of it.
  void AddReplica(const ServerFigures& replica, const std::string& address);
  // reco_server's own figures (the reply budget, abandoned builds, malloc_trim) exist
  // only in reco_server's snapshots, not the stats library's.
  bool from_reco_server() const { return source.empty() || source == "reco_server"; }
  // For a server that cannot count its RPCs: takes the client's completed calls of the
  // same window as the RPCs every per-RPC figure divides by.
  void CountRpcsByClient(uint64_t client_completed);
  // value / rpcs (0 when no RPC was answered).
  double PerRpc(uint64_t value) const { return rpcs ? static_cast<double>(value) / rpcs : 0.0; }
  double CpuMicrosPerRpc() const { return rpcs ? (cpu_user_seconds + cpu_system_seconds) * 1e6 / rpcs : 0.0; }
  // Arena figures are summed at each release, so they divide by releases.
  double PerRelease(uint64_t value) const { return released ? static_cast<double>(value) / released : 0.0; }
};

// One backend's share of a replicated target: its address and its own figures.
struct ReplicaFigures {
  std::string address;
  ServerFigures server;
};

ServerFigures ServerFiguresBetween(const v1::StatsSnapshot& before, const v1::StatsSnapshot& after);

// Figures with available = false and the reason.
ServerFigures UnavailableServerFigures(const std::string& note);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_SERVER_FIGURES_H_
