// See prometheus_metrics.h.
#include "server/prometheus_metrics.h"

#include <array>
#include <limits>
#include <string>
#include <utility>

#include "core/latency_histogram.h"

namespace reco {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

constexpr std::array<const char*, 17> kCodeNames = {
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED"};

// Bounds in the histograms' units: nanoseconds (reported in seconds) and allocation calls.
constexpr std::array<double, 14> kSecondsBounds = {25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3,   2.5e-3,
                                                   5e-3,  10e-3, 25e-3,  50e-3,  100e-3, 250e-3, 1.0};
constexpr std::array<double, 11> kAllocationBounds = {0, 1, 10, 100, 500, 1000, 2500, 5000, 10000, 50000, 100000};

class Families {
 public:
  explicit Families(std::string mode) : mode_(std::move(mode)) {}

  void Counter(const std::string& name, const std::string& help, double value, Labels extra = {}) {
    Family(name, help, MetricType::Counter).metric.push_back(Metric(std::move(extra)));
    families_.back().metric.back().counter.value = value;
  }
  void Gauge(const std::string& name, const std::string& help, double value, Labels extra = {}) {
    Family(name, help, MetricType::Gauge).metric.push_back(Metric(std::move(extra)));
    families_.back().metric.back().gauge.value = value;
  }
  // `scale` converts the histogram's unit to the metric's (1e-9: nanoseconds to seconds).
  template <size_t N>
  void Histogram(const std::string& name, const std::string& help, const v1::Histogram& h,
                 const std::array<double, N>& bounds, double scale, Labels extra) {
    Family(name, help, MetricType::Histogram).metric.push_back(Metric(std::move(extra)));
    ClientMetric::Histogram& out = families_.back().metric.back().histogram;
    out.sample_count = h.count();
    out.sample_sum = static_cast<double>(h.sum_ns()) * scale;
    for (double bound : bounds) out.bucket.push_back({CountAtOrBelow(h, bound / scale), bound});
    out.bucket.push_back({h.count(), std::numeric_limits<double>::infinity()});
  }
  std::vector<MetricFamily> Take() { return std::move(families_); }

 private:
  // The family named `name`, made if it is not the last one added (a family's series
  // are added one after another).
  MetricFamily& Family(const std::string& name, const std::string& help, MetricType type) {
    if (families_.empty() || families_.back().name != name) families_.push_back({name, help, type, {}});
    return families_.back();
  }
  ClientMetric Metric(Labels extra) const {
    ClientMetric m;
    m.label.push_back({"mode", mode_});
    for (auto& l : extra) m.label.push_back(std::move(l));
    return m;
  }
  static uint64_t CountAtOrBelow(const v1::Histogram& h, double bound) {
    uint64_t n = 0;
    for (int i = 0; i < h.bucket_index_size() && i < h.bucket_count_size(); ++i) {
      if (static_cast<double>(LatencyHistogram::BucketLow(static_cast<int>(h.bucket_index(i)))) <= bound) {
        n += h.bucket_count(i);
      }
    }
    return n;
  }

  const std::string mode_;
  std::vector<MetricFamily> families_;
};

void AddCalls(const v1::StatsSnapshot& s, Families* f) {
  const std::string help = "Calls finished, by gRPC status";
  f->Counter("reco_rpcs_total", help, static_cast<double>(s.rpcs()), {{"code", "OK"}});
  for (int code = 1; code < s.rpcs_by_code_size() && code < static_cast<int>(kCodeNames.size()); ++code) {
    if (s.rpcs_by_code(code) == 0) continue;
    f->Counter("reco_rpcs_total", help, static_cast<double>(s.rpcs_by_code(code)), {{"code", kCodeNames[code]}});
  }
}

void AddPhases(const v1::StatsSnapshot& s, Families* f) {
  const std::array<std::pair<const char*, const v1::PhaseStats*>, 3> phases = {
      {{"build", &s.build()}, {"serialize", &s.serialize()}, {"release", &s.release()}}};
  const bool measured[] = {s.has_build(), s.has_serialize(), s.has_release()};
  for (size_t i = 0; i < phases.size(); ++i) {
    if (!measured[i]) continue;
    f->Histogram("reco_phase_seconds", "Wall time of each call's phase", phases[i].second->latency(), kSecondsBounds,
                 1e-9, {{"phase", phases[i].first}});
  }
  for (size_t i = 0; i < phases.size(); ++i) {
    if (!measured[i]) continue;
    f->Histogram("reco_phase_allocations", "Allocation calls made in each call's phase",
                 phases[i].second->allocations_per_call(), kAllocationBounds, 1.0, {{"phase", phases[i].first}});
  }
  for (size_t i = 0; i < phases.size(); ++i) {
    if (!measured[i]) continue;
    f->Counter("reco_phase_allocated_bytes_total", "Bytes asked for by the allocations of the phase",
               static_cast<double>(phases[i].second->allocations().bytes()), {{"phase", phases[i].first}});
  }
}

void AddProcess(const v1::StatsSnapshot& s, Families* f) {
  if (s.has_process_allocations()) {
    const v1::AllocationTotals& a = s.process_allocations();
    f->Counter("reco_process_allocations_total", "Allocation calls of the whole process", a.allocs());
    f->Counter("reco_process_frees_total", "Free calls of the whole process", a.frees());
    f->Counter("reco_process_allocated_bytes_total", "Bytes asked for by the process's allocations", a.bytes());
  }
  f->Counter("process_cpu_seconds_total", "User and system CPU time of the process",
             s.cpu_user_seconds() + s.cpu_system_seconds());
  f->Gauge("process_resident_memory_bytes", "Resident memory (VmRSS)", static_cast<double>(s.rss_bytes()));
  if (s.malloc_heap().available()) {
    const v1::MallocHeap& m = s.malloc_heap();
    f->Gauge("reco_malloc_system_bytes", "Bytes glibc malloc obtained from the system", m.arena_bytes());
    f->Gauge("reco_malloc_in_use_bytes", "Bytes in allocated chunks", m.in_use_bytes());
    f->Gauge("reco_malloc_free_bytes", "Bytes glibc holds in free chunks (fragmentation)", m.free_bytes());
  }
}

void AddStore(const v1::StoreStats& st, Families* f) {
  f->Gauge("reco_store_leases", "Response holders by state", st.in_use(), {{"state", "in_use"}});
  f->Gauge("reco_store_leases", "Response holders by state", st.idle(), {{"state", "idle"}});
  f->Counter("reco_store_leases_acquired_total", "Response holders handed to calls", st.acquired());
  f->Counter("reco_store_leases_created_total", "Holders made because none idle could be reused", st.created());
  f->Counter("reco_store_leases_unpooled_total", "arena_pool: plain arenas given past --max_idle", st.unpooled());
  f->Counter("reco_store_oversized_total", "reuse: messages freed for exceeding --max_kept_bytes", st.oversized());
  f->Counter("reco_arena_space_allocated_bytes_total", "Arena::SpaceAllocated() summed at each release",
             st.arena_space_allocated());
  f->Counter("reco_arena_space_used_bytes_total", "Arena::SpaceUsed() summed at each release", st.arena_space_used());
  f->Counter("reco_arena_overflows_total", "arena_pool: releases whose arena outgrew its block", st.arena_overflows());
  f->Counter("reco_arena_grown_total", "arena_pool: releases that grew the arena's block to fit the reply",
             st.arena_grown());
  f->Gauge("reco_arena_block_bytes", "arena_pool: bytes of the pooled arenas' blocks", st.arena_block_bytes());
}

void AddBudget(const v1::BudgetStats& b, Families* f) {
  f->Gauge("reco_reply_budget_capacity_bytes", "Bytes of replies allowed in flight", b.capacity_bytes());
  f->Gauge("reco_reply_budget_in_use_bytes", "Bytes reserved by replies in flight", b.in_use_bytes());
  f->Counter("reco_reply_budget_admitted_total", "Reservations granted", b.admitted());
  f->Counter("reco_reply_budget_refused_total", "Reservations refused (RESOURCE_EXHAUSTED)", b.refused());
  f->Counter("reco_reply_budget_cancelled_held_total", "Calls cancelled for holding their reply past --max_reply_hold",
             b.cancelled_held());
}

void AddTrim(const v1::TrimStats& t, Families* f) {
  f->Counter("reco_malloc_trims_total", "malloc_trim calls", t.trims());
  f->Counter("reco_malloc_trim_seconds_total", "Wall time inside malloc_trim", t.trim_seconds());
  f->Counter("reco_malloc_trim_returned_bytes_total", "Resident bytes malloc_trim gave back", t.rss_bytes_returned());
}

}  // namespace

std::vector<MetricFamily> PrometheusMetrics(const v1::StatsSnapshot& s) {
  Families f(s.mode());
  f.Gauge("reco_server_info", "The server's build: always 1", 1,
          {{"malloc", s.malloc()},
           {"source", s.source()},
           {"grpc_version", s.grpc_version()},
           {"protobuf_version", s.protobuf_version()}});
  if (!s.rpcs_not_counted()) AddCalls(s, &f);
  AddPhases(s, &f);
  AddProcess(s, &f);
  if (s.has_store()) AddStore(s.store(), &f);
  if (s.budget().enabled()) AddBudget(s.budget(), &f);
  if (s.trim().enabled()) AddTrim(s.trim(), &f);
  return f.Take();
}

}  // namespace reco
