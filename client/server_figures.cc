// See server_figures.h.
#include "client/server_figures.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

#include "core/histogram_proto.h"

namespace reco {
namespace {

// Counters only grow; a smaller later value means the server reset its window (or
// restarted) in between, and the later value alone is the best estimate.
uint64_t Delta(uint64_t later, uint64_t earlier) { return later >= earlier ? later - earlier : later; }

AllocationCounts Delta(const v1::AllocationTotals& later, const v1::AllocationTotals& earlier) {
  AllocationCounts c;
  c.allocs = Delta(later.allocs(), earlier.allocs());
  c.frees = Delta(later.frees(), earlier.frees());
  c.bytes = Delta(later.bytes(), earlier.bytes());
  return c;
}

ServerPhase Delta(const v1::PhaseStats& later, const v1::PhaseStats& earlier) {
  return {HistogramDifference(later.latency(), earlier.latency()), Delta(later.allocations(), earlier.allocations())};
}

}  // namespace

ServerFigures ServerFiguresBetween(const v1::StatsSnapshot& before, const v1::StatsSnapshot& after) {
  ServerFigures w;
  w.available = true;
  w.mode = after.mode();
  w.malloc = after.malloc();
  w.protobuf_version = after.protobuf_version();
  w.grpc_version = after.grpc_version();
  w.pid = after.pid();
  if (before.pid() != after.pid()) w.note = "the server restarted during the window";
  w.seconds = after.window_seconds() >= before.window_seconds() ? after.window_seconds() - before.window_seconds()
                                                                : after.window_seconds();
  w.rpcs = Delta(after.rpcs(), before.rpcs());
  w.rpc_errors = Delta(after.rpc_errors(), before.rpc_errors());
  w.rpc_over_budget = Delta(after.rpc_over_budget(), before.rpc_over_budget());
  w.rpc_abandoned = Delta(after.rpc_abandoned(), before.rpc_abandoned());
  w.budget_enabled = after.budget().enabled();
  w.budget_capacity_bytes = after.budget().capacity_bytes();
  w.budget_peak_bytes = after.budget().peak_bytes();
  w.trims = Delta(after.trim().trims(), before.trim().trims());
  w.trim_seconds = std::max(0.0, after.trim().trim_seconds() - before.trim().trim_seconds());
  w.build = Delta(after.build(), before.build());
  w.serialize = Delta(after.serialize(), before.serialize());
  w.release = Delta(after.release(), before.release());
  w.process = Delta(after.process_allocations(), before.process_allocations());
  w.process_counted = after.has_process_allocations();
  w.source = after.source();
  w.rpcs_from_client = after.rpcs_not_counted();
  w.cpu_user_seconds = std::max(0.0, after.cpu_user_seconds() - before.cpu_user_seconds());
  w.cpu_system_seconds = std::max(0.0, after.cpu_system_seconds() - before.cpu_system_seconds());
  w.rss_bytes = after.rss_bytes();
  w.peak_rss_bytes = after.peak_rss_bytes();
  w.malloc_heap_available = after.malloc_heap().available();
  w.heap_arena_bytes = after.malloc_heap().arena_bytes();
  w.heap_in_use_bytes = after.malloc_heap().in_use_bytes();
  w.heap_free_bytes = after.malloc_heap().free_bytes();
  w.released = Delta(after.store().released(), before.store().released());
  w.arena_space_allocated = Delta(after.store().arena_space_allocated(), before.store().arena_space_allocated());
  w.arena_space_used = Delta(after.store().arena_space_used(), before.store().arena_space_used());
  w.arena_overflows = Delta(after.store().arena_overflows(), before.store().arena_overflows());
  w.store_available = after.has_store();
  w.unpooled = Delta(after.store().unpooled(), before.store().unpooled());
  return w;
}

void ServerFigures::CountRpcsByClient(uint64_t client_completed) {
  if (!available || !rpcs_from_client) return;
  rpcs = client_completed;
  if (note.empty()) {
    note =
        "the server cannot count its RPCs (stats library preloaded): per-RPC figures divide by the calls the "
        "client completed in the window";
  }
}

ServerFigures UnavailableServerFigures(const std::string& note) {
  ServerFigures w;
  w.note = note;
  return w;
}

void ServerFigures::Merge(const ServerFigures& later) {
  if (!later.available) {
    if (note.empty()) note = later.note;
    return;
  }
  if (!available) {
    std::string kept_note = note;
    *this = later;
    if (note.empty()) note = kept_note;
    return;
  }
  seconds += later.seconds;
  rpcs += later.rpcs;
  rpc_errors += later.rpc_errors;
  rpc_over_budget += later.rpc_over_budget;
  rpc_abandoned += later.rpc_abandoned;
  budget_enabled = later.budget_enabled;
  budget_capacity_bytes = later.budget_capacity_bytes;
  budget_peak_bytes = std::max(budget_peak_bytes, later.budget_peak_bytes);
  trims += later.trims;
  trim_seconds += later.trim_seconds;
  for (auto [mine, theirs] : {std::pair{&build, &later.build}, std::pair{&serialize, &later.serialize},
                              std::pair{&release, &later.release}}) {
    mine->latency.Merge(theirs->latency);
    mine->allocations += theirs->allocations;
  }
  process += later.process;
  process_counted = process_counted && later.process_counted;
  rpcs_from_client = rpcs_from_client || later.rpcs_from_client;
  cpu_user_seconds += later.cpu_user_seconds;
  cpu_system_seconds += later.cpu_system_seconds;
  rss_bytes = later.rss_bytes;
  peak_rss_bytes = std::max(peak_rss_bytes, later.peak_rss_bytes);
  malloc_heap_available = later.malloc_heap_available;
  heap_arena_bytes = later.heap_arena_bytes;
  heap_in_use_bytes = later.heap_in_use_bytes;
  heap_free_bytes = later.heap_free_bytes;
  released += later.released;
  arena_space_allocated += later.arena_space_allocated;
  arena_space_used += later.arena_space_used;
  arena_overflows += later.arena_overflows;
  store_available = store_available || later.store_available;
  unpooled += later.unpooled;
  if (note.empty()) note = later.note;
}

void ServerFigures::AddReplica(const ServerFigures& replica, const std::string& address) {
  if (!replica.available) {
    *this = UnavailableServerFigures(absl::StrCat("replica ", address, ": ", replica.note));
    return;
  }
  if (!available) {
    if (!note.empty()) return;  // an earlier replica was unavailable: stay so
    *this = replica;
    if (!note.empty()) note = absl::StrCat("replica ", address, ": ", note);
    return;
  }
  // The gauges are the fleet's at the window's end: summed, then kept by Merge.
  const uint64_t rss = rss_bytes + replica.rss_bytes, peak = peak_rss_bytes + replica.peak_rss_bytes;
  const uint64_t arena = heap_arena_bytes + replica.heap_arena_bytes,
                 in_use = heap_in_use_bytes + replica.heap_in_use_bytes,
                 heap_free = heap_free_bytes + replica.heap_free_bytes;
  const uint64_t capacity = budget_capacity_bytes + replica.budget_capacity_bytes,
                 budget_peak = budget_peak_bytes + replica.budget_peak_bytes;
  const double window = std::max(seconds, replica.seconds);
  const std::string kept_note = note;
  Merge(replica);
  seconds = window;
  rss_bytes = rss;
  peak_rss_bytes = peak;
  heap_arena_bytes = arena;
  heap_in_use_bytes = in_use;
  heap_free_bytes = heap_free;
  budget_capacity_bytes = capacity;
  budget_peak_bytes = budget_peak;
  malloc_heap_available = malloc_heap_available && replica.malloc_heap_available;
  note = kept_note.empty() && !replica.note.empty() ? absl::StrCat("replica ", address, ": ", replica.note) : kept_note;
}

}  // namespace reco
