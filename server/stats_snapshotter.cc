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

// The calls in the window by status, and the time, allocations and CPU of each phase.
void ToProto(const PhaseRecorder::Totals& totals, v1::StatsSnapshot* s) {
  s->set_rpcs(totals.rpcs);
  s->set_rpc_errors(totals.rpc_errors);
  s->set_rpc_invalid(totals.invalid);
  s->set_rpc_over_budget(totals.over_budget);
  s->set_rpc_abandoned(totals.abandoned);
  ToProto(totals.phase[static_cast<int>(Phase::kBuild)], s->mutable_build());
  ToProto(totals.phase[static_cast<int>(Phase::kSerialize)], s->mutable_serialize());
  ToProto(totals.phase[static_cast<int>(Phase::kRelease)], s->mutable_release());
}

void ToProto(const GlibcHeap& heap, v1::MallocHeap* out) {
  out->set_available(heap.available);
  out->set_arena_bytes(heap.arena_bytes);
  out->set_in_use_bytes(heap.in_use_bytes);
  out->set_free_bytes(heap.free_bytes);
  out->set_releasable_bytes(heap.releasable_bytes);
}

// Counters since `base`; the gauges (in use, peak) as they are now.
void ToProto(const ReplyBudget::Stats& cur, const ReplyBudget::Stats& base, const CallReservations* reservations,
             v1::BudgetStats* out) {
  out->set_enabled(true);
  out->set_capacity_bytes(cur.capacity_bytes);
  out->set_max_reply_bytes(cur.max_reply_bytes);
  out->set_in_use_bytes(cur.in_use_bytes);
  out->set_peak_bytes(cur.peak_bytes);
  out->set_admitted(cur.admitted - base.admitted);
  out->set_refused(cur.refused - base.refused);
  out->set_refused_connection_share(cur.refused_connection_share - base.refused_connection_share);
  out->set_cancelled_held(cur.cancelled_held - base.cancelled_held);
  if (reservations != nullptr) {
    out->set_connection_share_bytes(reservations->connection_cap_bytes());
    out->set_max_reply_hold_seconds(absl::ToDoubleSeconds(reservations->limits().max_hold));
  }
}

void ToProto(const MemoryTrimmer::Stats& cur, const MemoryTrimmer::Stats& base, v1::TrimStats* out) {
  out->set_enabled(true);
  out->set_trims(cur.trims - base.trims);
  out->set_trim_seconds(cur.trim_seconds - base.trim_seconds);
  out->set_rss_bytes_returned(cur.rss_bytes_returned - base.rss_bytes_returned);
}

void ToProto(const Catalogue& c, v1::CatalogueStats* out) {
  out->set_seed(c.options().seed);
  out->set_items_per_profile(c.size());
  out->set_build_seconds(c.build_seconds());
  out->set_space_used_bytes(c.space_used_bytes());
  out->set_fragment_bytes(c.fragment_bytes());
}

// Counters since `base`; idle and in use as they are now.
void ToProto(const MessageStoreStats& cur, const MessageStoreStats& base, v1::StoreStats* out) {
  out->set_acquired(cur.acquired - base.acquired);
  out->set_released(cur.released - base.released);
  out->set_created(cur.created - base.created);
  out->set_idle(cur.idle);
  out->set_in_use(cur.acquired - cur.released);
  out->set_arena_space_allocated(cur.arena_space_allocated - base.arena_space_allocated);
  out->set_arena_space_used(cur.arena_space_used - base.arena_space_used);
  out->set_arena_overflows(cur.arena_overflows - base.arena_overflows);
  out->set_unpooled(cur.unpooled - base.unpooled);
  out->set_oversized(cur.oversized - base.oversized);
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
  ToProto(totals, &s);
  ToProto(now.process_allocations - baseline_.process_allocations, s.mutable_process_allocations());
  s.set_cpu_user_seconds(now.process.cpu_user_seconds - baseline_.process.cpu_user_seconds);
  s.set_cpu_system_seconds(now.process.cpu_system_seconds - baseline_.process.cpu_system_seconds);
  s.set_rss_bytes(now.process.rss_bytes);
  s.set_peak_rss_bytes(now.process.peak_rss_bytes);
  ToProto(ReadGlibcHeap(malloc_name_), s.mutable_malloc_heap());

  if (sources_.budget != nullptr) ToProto(now.budget, baseline_.budget, sources_.reservations, s.mutable_budget());
  if (sources_.trimmer != nullptr && sources_.trimmer->enabled()) ToProto(now.trim, baseline_.trim, s.mutable_trim());
  if (sources_.catalogue != nullptr) ToProto(*sources_.catalogue, s.mutable_catalogue());
  if (sources_.store != nullptr) ToProto(now.store, baseline_.store, s.mutable_store());

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
