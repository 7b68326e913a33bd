// See process_metrics.h.
#include "server/process_metrics.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace reco {
namespace {

double Seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

// A cgroup limit file's number; 0 for "max", a missing file or anything else.
uint64_t ReadLimitFile(const char* path) {
  unsigned long long bytes = 0;
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%llu", &bytes) != 1) bytes = 0;
  std::fclose(f);
  return bytes;
}

}  // namespace

uint64_t MemoryLimitBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t limit = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const uint64_t cgroup = ReadLimitFile(path);
    if (cgroup != 0 && (limit == 0 || cgroup < limit)) limit = cgroup;
  }
  return limit;
}

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
