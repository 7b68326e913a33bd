// ProcessMetrics: what the kernel and glibc say about this process -- CPU time,
// resident memory and malloc's heap -- read on demand for the stats snapshot.
//
// Example:
//   reco::ProcessMetrics m = reco::ReadProcessMetrics();
//   m.rss_bytes        // VmRSS from /proc/self/status
//   reco::ResetPeakRss();   // VmHWM restarts from the current VmRSS
//
// Thread-safety: any thread. Reads are snapshots; nothing is cached.
#ifndef ARENA_GRPC_SERVER_PROCESS_METRICS_H_
#define ARENA_GRPC_SERVER_PROCESS_METRICS_H_

#include <cstdint>
#include <string>

namespace reco {

struct ProcessMetrics {
  double cpu_user_seconds = 0;  // getrusage(RUSAGE_SELF), whole process
  double cpu_system_seconds = 0;
  uint64_t rss_bytes = 0;       // VmRSS
  uint64_t peak_rss_bytes = 0;  // VmHWM: peak since start or the last ResetPeakRss()
};

struct GlibcHeap {
  bool available = false;         // mallinfo2 reflects the allocator only when it is glibc
  uint64_t arena_bytes = 0;       // arena + hblkhd
  uint64_t in_use_bytes = 0;      // uordblks + hblkhd
  uint64_t free_bytes = 0;        // fordblks
  uint64_t releasable_bytes = 0;  // keepcost
};

ProcessMetrics ReadProcessMetrics();
// Writes "5" to /proc/self/clear_refs; false when the kernel refused.
bool ResetPeakRss();
// The most memory this process may use: the machine's physical memory, or the
// cgroup's limit (memory.max, v2; memory.limit_in_bytes, v1) when lower; 0 when
// neither can be read.
uint64_t MemoryLimitBytes();
// mallinfo2(), when malloc_name is "glibc" (AllocationCounter::MallocName()).
GlibcHeap ReadGlibcHeap(const std::string& malloc_name);

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_PROCESS_METRICS_H_
