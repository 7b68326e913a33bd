// ProcessWindow: the process-wide half of a reco.v1.StatsSnapshot -- what any server
// can report about itself without knowing its handlers: allocations (the project's
// interposer), CPU time, resident memory, glibc's heap, the library versions -- as
// totals over a window that starts at construction and again at every Restart().
//
// Shared by reco_server's StatsSnapshotter and the stats library (stats/), so both
// fill these fields the same way and reco_load reads them alike.
//
// Example:
//   reco::ProcessWindow window;           // the window starts; the peak RSS restarts
//   reco::v1::StatsSnapshot s;
//   window.Fill(&s);                      // s.process_allocations(): since construction
//   window.Restart();                     // a new window (GetStatsRequest.reset)
//
// process_allocations is left unset (has_process_allocations() false) when the
// interposer is not the process's malloc (AllocationCounter::Interposing()): a zero
// there would read as "no allocations".
//
// Thread-safety: none; the caller serializes Fill() and Restart().
#ifndef ARENA_GRPC_SERVER_PROCESS_WINDOW_H_
#define ARENA_GRPC_SERVER_PROCESS_WINDOW_H_

#include <chrono>
#include <string>

#include "core/allocation_counter.h"
#include "proto/stats.pb.h"
#include "server/process_metrics.h"

namespace reco {

class ProcessWindow {
 public:
  ProcessWindow();
  // Sets malloc (glibc with the GLIBC_TUNABLES the process started with, e.g.
  // "glibc(glibc.malloc.mxfast=0)"), pid, window_seconds, process_allocations, cpu_*, rss_bytes,
  // peak_rss_bytes, malloc_heap, protobuf_version and grpc_version.
  void Fill(v1::StatsSnapshot* s) const;
  // Starts a new window: new baselines, and the peak RSS restarts from the current RSS.
  void Restart();

 private:
  struct Baseline {
    std::chrono::steady_clock::time_point start;
    AllocationCounts allocations;
    ProcessMetrics process;
  };
  static Baseline Take();

  const std::string malloc_name_;
  const std::string malloc_label_;  // StatsSnapshot.malloc: the name, with glibc's tunables
  Baseline baseline_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_PROCESS_WINDOW_H_
