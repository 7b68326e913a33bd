// See process_window.h.
#include "server/process_window.h"

#include <unistd.h>

#include <grpcpp/grpcpp.h>

#include "google/protobuf/stubs/common.h"

namespace reco {

ProcessWindow::ProcessWindow()
    : malloc_name_(AllocationCounter::MallocName()), malloc_label_(AllocationCounter::MallocLabel()) {
  Restart();
}

ProcessWindow::Baseline ProcessWindow::Take() {
  Baseline b;
  b.start = std::chrono::steady_clock::now();
  b.allocations = AllocationCounter::Process();
  b.process = ReadProcessMetrics();
  return b;
}

void ProcessWindow::Restart() {
  ResetPeakRss();
  baseline_ = Take();
}

void ProcessWindow::Fill(v1::StatsSnapshot* s) const {
  const Baseline now = Take();
  s->set_malloc(malloc_label_);
  s->set_pid(getpid());
  s->set_window_seconds(std::chrono::duration<double>(now.start - baseline_.start).count());
  if (AllocationCounter::Interposing()) {
    const AllocationCounts used = now.allocations - baseline_.allocations;
    v1::AllocationTotals* out = s->mutable_process_allocations();
    out->set_allocs(used.allocs);
    out->set_frees(used.frees);
    out->set_bytes(used.bytes);
  }
  s->set_cpu_user_seconds(now.process.cpu_user_seconds - baseline_.process.cpu_user_seconds);
  s->set_cpu_system_seconds(now.process.cpu_system_seconds - baseline_.process.cpu_system_seconds);
  s->set_rss_bytes(now.process.rss_bytes);
  s->set_peak_rss_bytes(now.process.peak_rss_bytes);
  const GlibcHeap heap = ReadGlibcHeap(malloc_name_);
  v1::MallocHeap* out = s->mutable_malloc_heap();
  out->set_available(heap.available);
  out->set_arena_bytes(heap.arena_bytes);
  out->set_in_use_bytes(heap.in_use_bytes);
  out->set_free_bytes(heap.free_bytes);
  out->set_releasable_bytes(heap.releasable_bytes);
  s->set_protobuf_version(google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
  s->set_grpc_version(grpc::Version());
}

}  // namespace reco
