// See memory_trimmer.h.
#include "server/memory_trimmer.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "core/allocation_counter.h"
#include "server/process_metrics.h"

namespace reco {

absl::Status CheckTrimOptions(const TrimOptions& o) {
  if (o.interval < absl::ZeroDuration() || o.interval > absl::Hours(24) ||
      (o.interval > absl::ZeroDuration() && o.interval < absl::Milliseconds(10))) {
    return absl::InvalidArgumentError(
        absl::StrCat("trim_interval=", absl::FormatDuration(o.interval), " is out of range: 0 (never) or [10ms, 24h]"));
  }
  if (o.max_wait_intervals < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("trim_max_wait_intervals=", o.max_wait_intervals, " is out of range: at least 1"));
  }
  return absl::OkStatus();
}

MemoryTrimmer::MemoryTrimmer(TrimOptions options, const std::string& malloc_name)
    : options_(options), enabled_(options.interval > absl::ZeroDuration() && malloc_name == "glibc") {
  if (enabled_) thread_ = std::thread([this] { Run(); });
}

MemoryTrimmer::~MemoryTrimmer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

MemoryTrimmer::Stats MemoryTrimmer::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

bool MemoryTrimmer::TrimIfWorthIt() {
  if (!enabled_) return false;
  // work_mu_, not mu_: a trim can take tens of milliseconds, and stats() (the Stats
  // RPC) must not wait for it.
  std::lock_guard<std::mutex> work(work_mu_);
  const uint64_t allocated = AllocationCounter::Process().bytes;
  const uint64_t free_bytes = ReadGlibcHeap("glibc").free_bytes;
  if (free_bytes <= options_.threshold_bytes) return false;
  const bool churned = allocated - allocated_at_last_trim_ > options_.threshold_bytes;
  const bool freed_more = free_bytes > free_at_last_trim_ + options_.threshold_bytes;
  const uint64_t rss_before = ReadProcessMetrics().rss_bytes;
  const bool rss_grew = rss_before > rss_at_last_trim_ + options_.threshold_bytes;
  if (!churned && !freed_more && !rss_grew) return false;
  if (++due_since_last_trim_ == 1) {
    // The first due look since the last trim: did the process take its memory back?
    const bool reused = returned_at_last_trim_ > options_.threshold_bytes &&
                        rss_before >= rss_at_last_trim_ + returned_at_last_trim_ / 2;
    wait_intervals_ = reused ? std::min(wait_intervals_ * 2, std::max<uint32_t>(options_.max_wait_intervals, 1)) : 1;
  }
  if (due_since_last_trim_ < wait_intervals_) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.waited;
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  malloc_trim(0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const uint64_t rss_after = ReadProcessMetrics().rss_bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.trims;
    stats_.trim_seconds += seconds;
    // Free pages inside chunks go back by madvise, which lowers RSS but not glibc's
    // free-byte count: RSS is the figure that shows what was given back.
    if (rss_before > rss_after) stats_.rss_bytes_returned += rss_before - rss_after;
  }
  allocated_at_last_trim_ = AllocationCounter::Process().bytes;
  free_at_last_trim_ = ReadGlibcHeap("glibc").free_bytes;
  rss_at_last_trim_ = rss_after;
  returned_at_last_trim_ = rss_before > rss_after ? rss_before - rss_after : 0;
  due_since_last_trim_ = 0;
  return true;
}

void MemoryTrimmer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, absl::ToChronoNanoseconds(options_.interval), [this] { return stopping_; })) {
    lock.unlock();
    TrimIfWorthIt();
    lock.lock();
  }
}

}  // namespace reco
