// MemoryTrimmer: gives freed heap memory back to the system, so that a burst of large
// replies does not leave the process holding its peak for good.
//
// glibc keeps freed chunks for reuse: after a burst of large replies, RSS stayed near its
// peak for minutes with little in use (issue 10). malloc_trim(0) hands the free pages
// of every arena back (madvise), at the price of walking the free chunks under the
// arena locks. So a background thread looks every `interval` and trims only when it is
// worth it: glibc holds more than `threshold_bytes` free, AND since the last trim
// the process allocated more than `threshold_bytes` (the free pages may have been
// touched again), or glibc's free bytes grew by more than that (a burst was freed),
// or RSS grew by more than that. Otherwise the free pages it holds are the ones the last trim already gave
// back (madvise lowers RSS, not glibc's free count).
//
// Under steady load of large replies the churn test passes every interval, and what a
// trim gives back the next replies take again, a page fault per page. So when RSS
// has grown back by half of what the last trim returned, the process is reusing that
// memory: the trimmer waits twice as many due looks before the next trim, up to
// `max_wait_intervals`, and back to one as soon as a trim's memory stays returned. After a burst, RSS is back within
// max_wait_intervals x interval (plus a trim). The stats say how many trims, how long
// they took and how many due trims waited (docs/reliability.md has the measured cost).
//
// Only under glibc: with tcmalloc, jemalloc or mimalloc preloaded, mallinfo2 does not
// describe the allocator in use and the trimmer stays off (those return memory by
// their own policies).
//
// Example:
//   reco::MemoryTrimmer trimmer({absl::Seconds(1), 16 << 20}, AllocationCounter::MallocName());
//   ...serve...
//   trimmer.stats().trims
//
// Thread-safety: stats() and TrimIfWorthIt() from any thread.
#ifndef ARENA_GRPC_SERVER_MEMORY_TRIMMER_H_
#define ARENA_GRPC_SERVER_MEMORY_TRIMMER_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace reco {

struct TrimOptions {
  absl::Duration interval = absl::Seconds(1);  // zero: no trimming
  uint64_t threshold_bytes = 16 << 20;
  // The most intervals between two trims while the process keeps taking back what
  // each trim gave (at least 1: then every interval, as before).
  uint32_t max_wait_intervals = 4;
};

// OK, or INVALID_ARGUMENT naming the field: interval 0 (never) or 10 ms to 24 h
// (under 10 ms the trimmer's own look, mallinfo2 and /proc, becomes a load: at 1 ns it
// kept an idle server busy), max_wait_intervals at least 1.
absl::Status CheckTrimOptions(const TrimOptions& options);

class MemoryTrimmer {
 public:
  // Starts the thread unless options.interval is zero or malloc_name is not "glibc".
  MemoryTrimmer(TrimOptions options, const std::string& malloc_name);
  ~MemoryTrimmer();  // stops the thread (at most one check in progress is finished)

  bool enabled() const { return enabled_; }

  struct Stats {
    uint64_t trims = 0;
    double trim_seconds = 0;
    uint64_t rss_bytes_returned = 0;  // resident bytes before minus after each trim, summed
    uint64_t waited = 0;              // looks that found a trim due but waited: the last one's memory was taken back
  };
  Stats stats() const;

  // One look, as the thread takes every interval: true when it trimmed.
  bool TrimIfWorthIt();

  MemoryTrimmer(const MemoryTrimmer&) = delete;
  MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

 private:
  void Run();

  const TrimOptions options_;
  const bool enabled_;
  mutable std::mutex mu_;  // stopping_ and stats_
  std::condition_variable wake_;
  bool stopping_ = false;
  Stats stats_;
  std::mutex work_mu_;                   // one look at a time; the two below
  uint64_t allocated_at_last_trim_ = 0;  // the process's allocated bytes then
  uint64_t free_at_last_trim_ = 0;       // glibc's free bytes right after it
  uint64_t rss_at_last_trim_ = 0;        // VmRSS right after it
  uint64_t returned_at_last_trim_ = 0;   // VmRSS it gave back
  uint32_t due_since_last_trim_ = 0;     // looks since then that found a trim due
  uint32_t wait_intervals_ = 1;          // due looks to pass before the next trim
  std::thread thread_;                   // last: started once the rest is initialized
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_MEMORY_TRIMMER_H_
