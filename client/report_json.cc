// The JSON and CSV reports. See report_renderers.h.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/noise_guard.h"
#include "client/report_figures.h"
#include "client/report_renderers.h"
#include "core/request.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

using nlohmann::json;

// The percentiles the JSON keeps of every histogram (enough to draw its curve).
constexpr double kCurvePercentiles[] = {0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100};

json HistogramJson(const LatencyHistogram& h) {
  json j = {{"count", h.count()}, {"min_ns", h.min()}, {"max_ns", h.max()}, {"mean_ns", h.mean()}};
  json curve = json::object();
  for (double p : kCurvePercentiles) curve[absl::StrFormat("%g", p)] = h.Percentile(p);
  j["percentiles_ns"] = curve;
  return j;
}

// A client histogram also carries its non-empty buckets, [[index, count], ...] in
// the layout of top-level "histogram_layout", and its exact sum: with count, min and
// max that is the whole histogram, so reports of concurrent runs merge exactly
// (client/report_merge.h) instead of averaging percentiles. A few hundred pairs at
// most: latencies of one run span a few powers of two, 128 buckets each.
json ClientHistogramJson(const LatencyHistogram& h) {
  json j = HistogramJson(h);
  j["sum_ns"] = h.sum();
  json buckets = json::array();
  const std::vector<uint64_t>& b = h.buckets();
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i]) buckets.push_back({i, b[i]});
  }
  j["buckets"] = buckets;
  return j;
}

json CountsJson(const AllocationCounts& c) { return {{"allocs", c.allocs}, {"frees", c.frees}, {"bytes", c.bytes}}; }

json ClientJson(const ClientFigures& c, bool open_loop) {
  json errors = json::object();
  for (int code = 1; code < ClientFigures::kStatusCodes; ++code) {
    if (c.errors_by_code[code]) errors[StatusCodeName(code)] = c.errors_by_code[code];
  }
  json j = {{"seconds", c.seconds},         {"client_cpu_seconds", c.client_cpu_seconds}, {"sent", c.sent},
            {"completed", c.completed},     {"ok", c.ok},
            {"response_bytes", c.response_bytes},
            {"errors_by_code", errors},     {"wrong_item_count", c.wrong_item_count},
            {"wrong_content", c.wrong_content}, {"verified", c.verified},
            {"latency", ClientHistogramJson(c.latency)}};
  if (open_loop) {
    j["scheduled"] = c.scheduled;
    j["unsent"] = c.unsent;
    j["latency_uncorrected"] = ClientHistogramJson(c.latency_uncorrected);
    j["schedule_lag"] = ClientHistogramJson(c.schedule_lag);
  }
  return j;
}

json ServerJson(const ServerFigures& s) {
  if (!s.available) return {{"available", false}, {"note", s.note}};
  auto phase = [](const ServerPhase& p) {
    return json{{"latency", HistogramJson(p.latency)}, {"allocations", CountsJson(p.allocations)}};
  };
  return {{"available", true},
          {"note", s.note},
          {"mode", s.mode},
          {"malloc", s.malloc},
          {"pid", s.pid},
          {"protobuf_version", s.protobuf_version},
          {"grpc_version", s.grpc_version},
          {"seconds", s.seconds},
          {"rpcs", s.rpcs},
          {"rpc_errors", s.rpc_errors},
          {"rpc_over_budget", s.rpc_over_budget},
          {"rpc_abandoned", s.rpc_abandoned},
          {"budget",
           {{"enabled", s.budget_enabled},
            {"capacity_bytes", s.budget_capacity_bytes},
            {"peak_bytes", s.budget_peak_bytes}}},
          {"trim", {{"trims", s.trims}, {"seconds", s.trim_seconds}}},
          {"build", phase(s.build)},
          {"serialize", phase(s.serialize)},
          {"release", phase(s.release)},
          {"process_allocations", CountsJson(s.process)},
          {"cpu_user_seconds", s.cpu_user_seconds},
          {"cpu_system_seconds", s.cpu_system_seconds},
          {"rss_bytes", s.rss_bytes},
          {"peak_rss_bytes", s.peak_rss_bytes},
          {"malloc_heap",
           {{"available", s.malloc_heap_available},
            {"arena_bytes", s.heap_arena_bytes},
            {"in_use_bytes", s.heap_in_use_bytes},
            {"free_bytes", s.heap_free_bytes}}},
          {"store",
           {{"released", s.released},
            {"arena_space_allocated", s.arena_space_allocated},
            {"arena_space_used", s.arena_space_used},
            {"arena_overflows", s.arena_overflows}}}};
}

// One backend of a replicated target: how many RPCs it served (its share of the
// target's) and its main per-RPC figures; the full figures are the target's "server".
json ReplicasJson(const std::vector<ReplicaFigures>& replicas, const ServerFigures& target) {
  json out = json::array();
  for (const ReplicaFigures& r : replicas) {
    const ServerFigures& s = r.server;
    json j = {{"address", r.address}, {"available", s.available}, {"note", s.note}};
    if (s.available) {
      j["pid"] = s.pid;
      j["rpcs"] = s.rpcs;
      j["rpc_errors"] = s.rpc_errors;
      j["share_of_rpcs"] = target.rpcs ? static_cast<double>(s.rpcs) / target.rpcs : 0.0;
      j["cpu_seconds"] = s.cpu_user_seconds + s.cpu_system_seconds;
      j["cpu_us_per_rpc"] = s.CpuMicrosPerRpc();
      j["build_allocs_per_rpc"] = s.PerRpc(s.build.allocations.allocs);
      j["process_allocs_per_rpc"] = s.PerRpc(s.process.allocs);
      j["rss_bytes"] = s.rss_bytes;
      j["peak_rss_bytes"] = s.peak_rss_bytes;
    }
    out.push_back(j);
  }
  return out;
}

template <typename Window>  // RoundResult or TargetResult
json FiguresJson(const std::vector<Figure>& figures, const Window& w) {
  json j = json::object();
  for (const Figure& f : figures) {
    std::optional<double> v = f.Of(w);
    j[f.key] = v ? json(*v) : json(nullptr);
  }
  return j;
}

json OptionalJson(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

json PairedJson(const std::optional<PairedRatio>& p) {
  if (!p) return nullptr;
  return {{"median", p->median}, {"min", p->min},         {"max", p->max},
          {"rounds", p->rounds}, {"skipped", p->skipped}, {"measurable", p->measurable()}};
}

json MachineJson(const MachineWindow& m) {
  std::optional<double> share = m.OtherShare();
  return {{"seconds", m.seconds},
          {"cpus", m.cpus},
          {"busy_cpu_seconds", OptionalJson(m.busy_cpu_seconds)},
          {"other_cpu_seconds", OptionalJson(m.other_cpu_seconds)},
          {"other_cpu_share", OptionalJson(share)},
          {"disturbed", Disturbed(m)}};
}

}  // namespace

std::string RenderJson(const RunReport& report) {
  const LoadOptions& o = report.options;
  const std::vector<Figure> figures = ReportFigures(o);
  json targets = json::array();
  for (size_t ti = 0; ti < report.targets.size(); ++ti) {
    const TargetResult& t = report.targets[ti];
    std::optional<double> share = report.QpsShareOfCeiling(ti);
    json rounds = json::array();
    json disturbed = json::array();
    for (const RoundResult& r : t.rounds) {
      rounds.push_back({{"round", r.round},
                        {"window_start_unix_ms", r.window_start_unix_ms},
                        {"window_end_unix_ms", r.window_end_unix_ms},
                        {"figures", FiguresJson(figures, r)},
                        {"client", ClientJson(r.client, o.open_loop())},
                        {"server", ServerJson(r.server)},
                        {"replicas", ReplicasJson(r.replicas, r.server)},
                        {"machine", MachineJson(r.machine)}});
      if (Disturbed(r.machine)) disturbed.push_back(r.round);
    }
    json ratios = json::object();
    for (const Figure& f : figures) ratios[f.key] = PairedJson(RatioToBaseline(report, ti, f));
    auto [lo, hi] = t.QpsRange();
    targets.push_back({{"name", t.spec.name},
                       {"address", t.spec.address},
                       {"figures", FiguresJson(figures, t)},
                       {"ratios_to_baseline", ratios},
                       {"qps_min_round", lo},
                       {"qps_max_round", hi},
                       {"qps_share_of_ceiling", OptionalJson(share)},
                       {"share_of_ceiling",
                        report.CeilingIndex() >= 0 ? json{{"qps", PairedJson(report.PairedQpsShareOfCeiling(ti))}}
                                                   : json(nullptr)},
                       {"client", ClientJson(t.client, o.open_loop())},
                       {"backends", t.spec.Backends()},
                       {"server", ServerJson(t.server)},
                       {"replicas", ReplicasJson(t.replicas, t.server)},
                       {"machine", MachineJson(t.machine)},
                       {"disturbed_rounds", disturbed},
                       {"rounds", rounds}});
  }
  json target_specs = json::array();
  // One NAME=ADDRESS per backend, as given on the command line (a replicated target
  // repeats its name); report_reader.cc groups them back.
  for (const TargetSpec& t : o.targets) {
    for (const std::string& b : t.Backends()) target_specs.push_back(absl::StrCat(t.name, "=", b));
  }
  const RunEnvironment& e = report.environment;
  json doc = {
      {"tool", "reco_load"},
      {"parameters",
       {{"targets", target_specs},
        {"baseline", o.targets.empty() ? "" : o.targets[0].name},
        {"ceiling", report.CeilingIndex() >= 0 ? json(report.targets[report.CeilingIndex()].spec.name) : json(nullptr)},
        {"warmup_seconds", absl::ToDoubleSeconds(o.warmup)},
        {"duration_seconds", absl::ToDoubleSeconds(o.duration)},
        {"rounds", o.rounds},
        {"loop", o.open_loop() ? "open" : "closed"},
        {"rate", o.rate},
        {"concurrency", o.concurrency},
        {"connections", o.connections},
        {"lb_policy", o.lb_policy},
        {"threads", o.threads},
        {"lookahead_bytes", o.lookahead_bytes},
        {"items", o.items ? o.items : kDefaultItemCount},
        {"profile", std::string(TextProfileName(o.profile))},
        {"seed", o.seed},
        {"variants", o.variants},
        {"verify_every", o.verify_every},
        {"max_error_rate", o.max_error_rate}}},
      {"environment",
       {{"protobuf_version", e.protobuf_version},
        {"grpc_version", e.grpc_version},
        {"cpu_model", e.cpu_model},
        {"cpus", e.cpus},
        {"client_malloc", e.client_malloc},
        {"started_utc", e.started_utc},
        {"command_line", e.command_line},
        {"merged_from", e.merged_from}}},
      {"histogram_layout",
       {{"sub_bucket_bits", LatencyHistogram::kSubBucketBits},
        {"max_exponent", LatencyHistogram::kMaxExponent},
        {"bucket_count", LatencyHistogram::kBucketCount}}},
      {"noise_guard",
       {{"disturbed_other_cpu_share", kDisturbedOtherCpuShare}, {"client_busy_share", kClientBusyShare}}},
      {"targets", targets},
      {"error_rate", report.error_rate()},
      {"wall_seconds", report.wall_seconds},
      {"warnings", report.warnings}};
  return doc.dump(2) + "\n";
}

std::string RenderCsv(const RunReport& report) {
  const std::vector<Figure> figures = ReportFigures(report.options);
  const bool ceiling = report.CeilingIndex() >= 0;
  std::vector<std::string> header = {"target", "address", "round"};
  for (const Figure& f : figures) header.push_back(f.key);
  if (ceiling) header.push_back("qps_share_of_ceiling");
  std::string out = absl::StrJoin(header, ",") + "\n";
  auto cell = [](std::optional<double> v, int decimals) {
    return v ? absl::StrFormat("%.*f", decimals, *v) : std::string();
  };
  for (size_t ti = 0; ti < report.targets.size(); ++ti) {
    const TargetResult& t = report.targets[ti];
    const std::optional<PairedRatio> share = ceiling ? report.PairedQpsShareOfCeiling(ti) : std::nullopt;
    auto row = [&](const std::string& round, const std::vector<std::string>& figure_cells,
                   std::optional<double> share_cell) {
      // A replicated target's address lists its backends with commas: quoted (RFC 4180).
      const std::string address =
          t.spec.address.find(',') == std::string::npos ? t.spec.address : absl::StrCat("\"", t.spec.address, "\"");
      std::vector<std::string> cells = {t.spec.name, address, round};
      cells.insert(cells.end(), figure_cells.begin(), figure_cells.end());
      if (ceiling) cells.push_back(cell(share_cell, 4));
      absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
    };
    for (size_t k = 0; k < t.rounds.size(); ++k) {
      std::vector<std::string> cells;
      for (const Figure& f : figures) cells.push_back(cell(f.Of(t.rounds[k]), f.decimals));
      row(absl::StrCat(t.rounds[k].round), cells,
          share && k < share->by_round.size() ? share->by_round[k] : std::nullopt);
    }
    std::vector<std::string> totals;
    for (const Figure& f : figures) totals.push_back(cell(f.Of(t), f.decimals));
    row("all", totals, ceiling ? report.QpsShareOfCeiling(ti) : std::nullopt);
    // The paired ratios to the baseline (and the paired share of the ceiling).
    std::vector<std::optional<PairedRatio>> ratios;
    for (const Figure& f : figures) ratios.push_back(RatioToBaseline(report, ti, f));
    auto part = [](const std::optional<PairedRatio>& r, double PairedRatio::*field) {
      return r ? std::optional<double>((*r).*field) : std::nullopt;
    };
    for (auto [name, field] : {std::pair{"ratio_median", &PairedRatio::median},
                               std::pair{"ratio_min", &PairedRatio::min}, std::pair{"ratio_max", &PairedRatio::max}}) {
      std::vector<std::string> cells;
      for (const std::optional<PairedRatio>& r : ratios) cells.push_back(cell(part(r, field), 4));
      row(name, cells, part(share, field));
    }
  }
  return out;
}

}  // namespace reco
