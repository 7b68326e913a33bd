// See stats_snapshotter.h.
#include "server/stats_snapshotter.h"

namespace reco {
namespace {

// The calls in the window by status, and the time, allocations and CPU of each phase.
void ToProto(const PhaseRecorder::Totals& totals, v1::StatsSnapshot* s) {
  CallCountsToProto(totals, s);
  PhaseToProto(totals.phase[static_cast<int>(Phase::kBuild)], s->mutable_build());
  PhaseToProto(totals.phase[static_cast<int>(Phase::kSerialize)], s->mutable_serialize());
  PhaseToProto(totals.phase[static_cast<int>(Phase::kRelease)], s->mutable_release());
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
  out->set_refused_client_share(cur.refused_client_share - base.refused_client_share);
  out->set_refused_client_penalty(cur.refused_client_penalty - base.refused_client_penalty);
  out->set_cancelled_held(cur.cancelled_held - base.cancelled_held);
  if (reservations != nullptr) {
    out->set_connection_share_bytes(reservations->connection_cap_bytes());
    out->set_client_share_bytes(reservations->client_cap_bytes());
    out->set_max_reply_hold_seconds(absl::ToDoubleSeconds(reservations->limits().max_hold));
  }
}

void ToProto(const MemoryTrimmer::Stats& cur, const MemoryTrimmer::Stats& base, v1::TrimStats* out) {
  out->set_enabled(true);
  out->set_trims(cur.trims - base.trims);
  out->set_trim_seconds(cur.trim_seconds - base.trim_seconds);
  out->set_rss_bytes_returned(cur.rss_bytes_returned - base.rss_bytes_returned);
  out->set_waited(cur.waited - base.waited);
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
  out->set_arena_grown(cur.arena_grown - base.arena_grown);
  out->set_arena_block_bytes(cur.arena_block_bytes);
}

}  // namespace

StatsSnapshotter::StatsSnapshotter(std::string mode_name, Sources sources)
    : mode_name_(std::move(mode_name)), sources_(sources) {
  baseline_ = start_ = TakeBaseline();
}

StatsSnapshotter::Baseline StatsSnapshotter::TakeBaseline() const {
  Baseline b;
  if (sources_.store != nullptr) b.store = sources_.store->Stats();
  if (sources_.budget != nullptr) b.budget = sources_.budget->stats();
  if (sources_.trimmer != nullptr) b.trim = sources_.trimmer->stats();
  return b;
}

void StatsSnapshotter::Fill(const PhaseRecorder::Totals& totals, const ProcessWindow& process, const Baseline& base,
                            v1::StatsSnapshot* s) const {
  process.Fill(s);
  Baseline now = TakeBaseline();
  s->set_mode(mode_name_);
  s->set_source("reco_server");
  ToProto(totals, s);
  if (sources_.budget != nullptr) ToProto(now.budget, base.budget, sources_.reservations, s->mutable_budget());
  if (sources_.trimmer != nullptr && sources_.trimmer->enabled()) ToProto(now.trim, base.trim, s->mutable_trim());
  if (sources_.catalogue != nullptr) ToProto(*sources_.catalogue, s->mutable_catalogue());
  if (sources_.store != nullptr) ToProto(now.store, base.store, s->mutable_store());
}

v1::StatsSnapshot StatsSnapshotter::Snapshot(bool reset) {
  std::lock_guard<std::mutex> lock(mu_);
  v1::StatsSnapshot s;
  // Read the totals first and the process figures right after, so both cover
  // (nearly) the same span.
  Fill(sources_.recorder->Snapshot(reset), process_, baseline_, &s);
  if (reset) {
    process_.Restart();
    if (sources_.budget != nullptr) sources_.budget->ResetPeak();
    baseline_ = TakeBaseline();
  }
  return s;
}

v1::StatsSnapshot StatsSnapshotter::SinceStart() {
  std::lock_guard<std::mutex> lock(mu_);
  v1::StatsSnapshot s;
  Fill(sources_.recorder->SinceStart(), since_start_, start_, &s);
  return s;
}

}  // namespace reco
