// StatsSnapshotter: turns the server's counters into reco.v1.StatsSnapshot -- totals
// over a window that starts when the server starts and again at every reset.
//
// Totals that only grow (process allocations, CPU time, store counters) are kept as
// baselines taken at the window's start and reported as differences (the process-wide
// ones by a ProcessWindow, server/process_window.h, shared with stats/); the phase
// histograms and RPC counts are reset in the PhaseRecorder itself. Gauges (RSS, idle
// leases, in_use) are read as they are now; the peak RSS restarts at a reset.
//
// Example (compiled in server/header_examples_test.cc):
//   reco::StatsSnapshotter snapshotter(
//       "arena_pool", {&recorder, store.get(), &budget, /*reservations=*/nullptr, &trimmer, catalogue.get()});
//   reco::v1::StatsSnapshot s = snapshotter.Snapshot(/*reset=*/true);
//   s.rpcs()   // Recommend RPCs answered OK since the window started
//
// Thread-safety: Snapshot() may be called from any thread; concurrent snapshots are
// serialized. The sources must outlive the snapshotter.
#ifndef ARENA_GRPC_SERVER_STATS_SNAPSHOTTER_H_
#define ARENA_GRPC_SERVER_STATS_SNAPSHOTTER_H_

#include <chrono>
#include <mutex>
#include <string>

#include "core/allocation_counter.h"
#include "core/catalogue.h"
#include "core/message_store.h"
#include "proto/stats.pb.h"
#include "server/call_reservations.h"
#include "server/memory_trimmer.h"
#include "server/phase_recorder.h"
#include "server/process_window.h"
#include "server/reply_budget.h"

namespace reco {

class StatsSnapshotter {
 public:
  // What the snapshots read; only the recorder is required.
  struct Sources {
    PhaseRecorder* recorder = nullptr;
    const MessageStore* store = nullptr;             // null in heap, fragments and ceiling modes
    ReplyBudget* budget = nullptr;                   // null without a reply budget
    const CallReservations* reservations = nullptr;  // the budget's per-call side, if any
    const MemoryTrimmer* trimmer = nullptr;          // null without trimming
    const Catalogue* catalogue = nullptr;            // the replies' catalogue
  };
  // mode_name: a ServingModeName (reco_server.h), for StatsSnapshot.mode.
  StatsSnapshotter(std::string mode_name, Sources sources);
  v1::StatsSnapshot Snapshot(bool reset);
  // The same figures since the snapshotter was made, whatever the resets: totals that
  // only grow, for Prometheus (server/metrics_endpoint.h). peak_rss_bytes is the
  // current window's (the kernel keeps one peak per process).
  v1::StatsSnapshot SinceStart();

 private:
  // The sources' counters at the window's start (the process's are in process_).
  struct Baseline {
    MessageStoreStats store;
    ReplyBudget::Stats budget;
    MemoryTrimmer::Stats trim;
  };
  Baseline TakeBaseline() const;
  void Fill(const PhaseRecorder::Totals& totals, const ProcessWindow& process, const Baseline& base,
            v1::StatsSnapshot* s) const;

  const std::string mode_name_;
  const Sources sources_;
  std::mutex mu_;
  ProcessWindow process_;
  Baseline baseline_;
  const ProcessWindow since_start_;  // never restarted
  Baseline start_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_STATS_SNAPSHOTTER_H_
