// See stats_snapshotter.h.
#include "server/stats_snapshotter.h"

#include <unistd.h>

#include <grpcpp/grpcpp.h>

#include "core/histogram_proto.h"
#include "google/protobuf/stubs/common.h"

namespace reco {
namespace {

void ToProto(const AllocationCounts& counts, v1::AllocationTotals* out) {
  out->set_allocs(counts.allocs);
  out->set_frees(counts.frees);
  out->set_bytes(counts.bytes);
}

void ToProto(const PhaseRecorder::PhaseTotals& totals, v1::PhaseStats* out) {
  HistogramToProto(totals.latency, out->mutable_latency());
  ToProto(totals.allocations, out->mutable_allocations());
}

}  // namespace

StatsSnapshotter::StatsSnapshotter(std::string mode_name, Sources sources)
    : mode_name_(std::move(mode_name)), sources_(sources), malloc_name_(AllocationCounter::MallocName()) {
  ResetPeakRss();
  baseline_ = TakeBaseline();
}

StatsSnapshotter::Baseline StatsSnapshotter::TakeBaseline() const {
  Baseline b;
  b.start = std::chrono::steady_clock::now();
  b.process_allocations = AllocationCounter::Process();
  b.process = ReadProcessMetrics();
  if (sources_.store != nullptr) b.store = sources_.store->Stats();
  if (sources_.budget != nullptr) b.budget = sources_.budget->stats();
  if (sources_.trimmer != nullptr) b.trim = sources_.trimmer->stats();
  return b;
}

v1::StatsSnapshot StatsSnapshotter::Snapshot(bool reset) {
  std::lock_guard<std::mutex> lock(mu_);
  v1::StatsSnapshot s;
  // Read the totals first and the process figures right after, so both cover
  // (nearly) the same span.
  PhaseRecorder::Totals totals = sources_.recorder->Snapshot(reset);
  Baseline now = TakeBaseline();

  s.set_mode(mode_name_);
  s.set_malloc(malloc_name_);
  s.set_pid(getpid());
  s.set_window_seconds(std::chrono::duration<double>(now.start - baseline_.start).count());
  s.set_rpcs(totals.rpcs);
  s.set_rpc_errors(totals.rpc_errors);
  s.set_rpc_invalid(totals.invalid);
  s.set_rpc_over_budget(totals.over_budget);
  s.set_rpc_abandoned(totals.abandoned);
  ToProto(totals.phase[static_cast<int>(Phase::kBuild)], s.mutable_build());
  ToProto(totals.phase[static_cast<int>(Phase::kSerialize)], s.mutable_serialize());
  ToProto(totals.phase[static_cast<int>(Phase::kRelease)], s.mutable_release());
  ToProto(now.process_allocations - baseline_.process_allocations, s.mutable_process_allocations());
  s.set_cpu_user_seconds(now.process.cpu_user_seconds - baseline_.process.cpu_user_seconds);
  s.set_cpu_system_seconds(now.process.cpu_system_seconds - baseline_.process.cpu_system_seconds);
  s.set_rss_bytes(now.process.rss_bytes);
  s.set_peak_rss_bytes(now.process.peak_rss_bytes);

  GlibcHeap heap = ReadGlibcHeap(malloc_name_);
  v1::MallocHeap* mh = s.mutable_malloc_heap();
  mh->set_available(heap.available);
  mh->set_arena_bytes(heap.arena_bytes);
  mh->set_in_use_bytes(heap.in_use_bytes);
  mh->set_free_bytes(heap.free_bytes);
  mh->set_releasable_bytes(heap.releasable_bytes);

  if (sources_.budget != nullptr) {
    const ReplyBudget::Stats& cur = now.budget;
    v1::BudgetStats* b = s.mutable_budget();
    b->set_enabled(true);
    b->set_capacity_bytes(cur.capacity_bytes);
    b->set_max_reply_bytes(cur.max_reply_bytes);
    b->set_in_use_bytes(cur.in_use_bytes);
    b->set_peak_bytes(cur.peak_bytes);
    b->set_admitted(cur.admitted - baseline_.budget.admitted);
    b->set_refused(cur.refused - baseline_.budget.refused);
    b->set_refused_connection_share(cur.refused_connection_share - baseline_.budget.refused_connection_share);
    b->set_cancelled_held(cur.cancelled_held - baseline_.budget.cancelled_held);
    if (const CallReservations* r = sources_.reservations; r != nullptr) {
      b->set_connection_share_bytes(r->connection_cap_bytes());
      b->set_max_reply_hold_seconds(absl::ToDoubleSeconds(r->limits().max_hold));
    }
  }
  if (sources_.trimmer != nullptr && sources_.trimmer->enabled()) {
    const MemoryTrimmer::Stats& cur = now.trim;
    v1::TrimStats* t = s.mutable_trim();
    t->set_enabled(true);
    t->set_trims(cur.trims - baseline_.trim.trims);
    t->set_trim_seconds(cur.trim_seconds - baseline_.trim.trim_seconds);
    t->set_rss_bytes_returned(cur.rss_bytes_returned - baseline_.trim.rss_bytes_returned);
  }
  if (const Catalogue* c = sources_.catalogue; c != nullptr) {
    v1::CatalogueStats* cs = s.mutable_catalogue();
    cs->set_seed(c->options().seed);
    cs->set_items_per_profile(c->size());
    cs->set_build_seconds(c->build_seconds());
    cs->set_space_used_bytes(c->space_used_bytes());
    cs->set_fragment_bytes(c->fragment_bytes());
  }

  if (sources_.store != nullptr) {
    const MessageStoreStats& cur = now.store;
    const MessageStoreStats& base = baseline_.store;
    v1::StoreStats* st = s.mutable_store();
    st->set_acquired(cur.acquired - base.acquired);
    st->set_released(cur.released - base.released);
    st->set_created(cur.created - base.created);
    st->set_idle(cur.idle);
    st->set_in_use(cur.acquired - cur.released);
    st->set_arena_space_allocated(cur.arena_space_allocated - base.arena_space_allocated);
    st->set_arena_space_used(cur.arena_space_used - base.arena_space_used);
    st->set_arena_overflows(cur.arena_overflows - base.arena_overflows);
    st->set_unpooled(cur.unpooled - base.unpooled);
    st->set_oversized(cur.oversized - base.oversized);
  }

  s.set_protobuf_version(google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
  s.set_grpc_version(grpc::Version());

  if (reset) {
    ResetPeakRss();
    if (sources_.budget != nullptr) sources_.budget->ResetPeak();
    baseline_ = TakeBaseline();
  }
  return s;
}

}  // namespace reco
