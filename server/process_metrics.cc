// See process_metrics.h.
#include "server/process_metrics.h"

#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstring>

namespace reco {
namespace {

double Seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

}  // namespace

ProcessMetrics ReadProcessMetrics() {
  ProcessMetrics m;
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    m.cpu_user_seconds = Seconds(usage.ru_utime);
    m.cpu_system_seconds = Seconds(usage.ru_stime);
  }
  // /proc/self/status lists sizes in kB ("VmRSS:    12345 kB").
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      unsigned long long kb = 0;
      if (std::sscanf(line, "VmRSS: %llu kB", &kb) == 1) m.rss_bytes = kb * 1024;
      if (std::sscanf(line, "VmHWM: %llu kB", &kb) == 1) m.peak_rss_bytes = kb * 1024;
    }
    std::fclose(f);
  }
  return m;
}

bool ResetPeakRss() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  bool ok = std::fputs("5", f) >= 0;
  ok = (std::fclose(f) == 0) && ok;
  return ok;
}

GlibcHeap ReadGlibcHeap(const std::string& malloc_name) {
  GlibcHeap heap;
  if (malloc_name != "glibc") return heap;
  struct mallinfo2 info = mallinfo2();
  heap.available = true;
  heap.arena_bytes = info.arena + info.hblkhd;
  heap.in_use_bytes = info.uordblks + info.hblkhd;
  heap.free_bytes = info.fordblks;
  heap.releasable_bytes = info.keepcost;
  return heap;
}

}  // namespace reco
