// See report_figures.h.
#include "client/report/report_figures.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/run_report.h"

namespace reco {
namespace {

using Value = std::optional<double>;
constexpr double kMs = 1e6;  // ns per ms
constexpr double kUs = 1e3;  // ns per us
constexpr double kMiB = 1024.0 * 1024.0;

Figure Client(std::string key, std::string label, int decimals, std::function<Value(const ClientFigures&)> f) {
  return {std::move(key), std::move(label), "client", decimals,
          [f](const ClientFigures& c, const ServerFigures&, const MachineWindow&) { return f(c); }};
}

Figure Server(std::string key, std::string label, int decimals, std::function<Value(const ServerFigures&)> f) {
  return {std::move(key), std::move(label), "server", decimals,
          [f](const ClientFigures&, const ServerFigures& s, const MachineWindow&) {
            return s.available && s.rpcs > 0 ? f(s) : Value();
          }};
}

// A phase figure: n/a when the server took no sample of that phase in the window
// (a server may leave a phase unmeasured, e.g. heap-mode release inside gRPC).
Figure Phase(std::string key, std::string label, int decimals, const ServerPhase ServerFigures::*phase,
             std::function<double(const ServerFigures&, const ServerPhase&)> f) {
  return Server(std::move(key), std::move(label), decimals, [phase, f](const ServerFigures& s) {
    const ServerPhase& p = s.*phase;
    return p.latency.count() > 0 ? Value(f(s, p)) : Value();
  });
}

// The client's figures: throughput, latency (from the schedule in an open loop),
// its own CPU, the machine's other load, errors.
void AddClientFigures(const LoadOptions& options, std::vector<Figure>* out) {
  std::vector<Figure>& f = *out;
  const bool open = options.open_loop();
  const std::string from = open ? " from schedule" : "";
  f.push_back(Client("qps", "QPS (OK responses/s)", 0, [](const ClientFigures& c) { return c.qps(); }));
  if (open) {
    f.push_back(Client("sent_per_second", "sent/s (asked " + absl::StrFormat("%g", options.rate) + ")", 0,
                       [](const ClientFigures& c) { return c.sent_per_second(); }));
  }
  for (double p : kReportPercentiles) {
    std::string label = PercentileLabel(p);
    f.push_back(Client(absl::StrCat("latency_", label, "_ms"), absl::StrCat(label, " latency", from, " (ms)"), 3,
                       [p](const ClientFigures& c) { return c.latency.Percentile(p) / kMs; }));
  }
  f.push_back(Client("latency_max_ms", "max latency" + from + " (ms)", 3,
                     [](const ClientFigures& c) { return c.latency.max() / kMs; }));
  f.push_back(Client("latency_mean_ms", "mean latency" + from + " (ms)", 3,
                     [](const ClientFigures& c) { return c.latency.mean() / kMs; }));
  if (open) {
    f.push_back(Client("latency_uncorrected_p50_ms", "p50 latency from send (ms)", 3,
                       [](const ClientFigures& c) { return c.latency_uncorrected.Percentile(50) / kMs; }));
    f.push_back(Client("latency_uncorrected_p99_ms", "p99 latency from send (ms)", 3,
                       [](const ClientFigures& c) { return c.latency_uncorrected.Percentile(99) / kMs; }));
    f.push_back(Client("schedule_lag_p99_ms", "schedule lag p99 (ms)", 3,
                       [](const ClientFigures& c) { return c.schedule_lag.Percentile(99) / kMs; }));
    f.push_back(Client("schedule_lag_max_ms", "schedule lag max (ms)", 3,
                       [](const ClientFigures& c) { return c.schedule_lag.max() / kMs; }));
    f.push_back(Client("unsent", "scheduled, never sent", 0, [](const ClientFigures& c) { return c.unsent; }));
  }
  if (options.call.server_streaming) {  // latency above is to the call's end
    f.push_back(Client("messages_per_call", "messages/call", 1, [](const ClientFigures& c) {
      return c.ok ? Value(static_cast<double>(c.messages) / c.ok) : Value();
    }));
    f.push_back(Client("messages_per_second", "messages/s", 0,
                       [](const ClientFigures& c) { return c.seconds > 0 ? Value(c.messages / c.seconds) : Value(); }));
    for (double p : {50.0, 99.0}) {
      std::string label = PercentileLabel(p);
      f.push_back(Client(absl::StrCat("first_message_", label, "_ms"),
                         absl::StrCat(label, " first message", from, " (ms)"), 3, [p](const ClientFigures& c) {
                           return c.first_message.count() ? Value(c.first_message.Percentile(p) / kMs) : Value();
                         }));
    }
  }
  f.push_back(Client("client_cpu_us_per_response", "client CPU/response (us)", 1,
                     [](const ClientFigures& c) { return c.client_cpu_micros_per_response(); }));
  // Measured by the client around its window (client/machine_cpu.h): the noise guard.
  f.push_back({"machine_other_cpu_percent", "other processes' CPU (% of machine)", "client", 1,
               [](const ClientFigures&, const ServerFigures&, const MachineWindow& m) {
                 std::optional<double> share = m.OtherShare();
                 return share ? Value(*share * 100) : Value();
               },
               /*has_ratio=*/false});
  f.push_back(Client("errors", "errors", 0, [](const ClientFigures& c) { return c.errors(); }));
  f.push_back(Client("received_mib_per_second", "received (MiB/s)", 1,
                     [](const ClientFigures& c) { return c.seconds > 0 ? c.response_bytes / kMiB / c.seconds : 0.0; }));
}

// The server's phases: allocations and time per RPC to build, serialize, release.
void AddPhaseFigures(std::vector<Figure>* out) {
  std::vector<Figure>& f = *out;
  f.push_back(Server("server_rpcs", "server RPCs", 0, [](const ServerFigures& s) { return s.rpcs; }));
  auto allocs = [](const ServerFigures& s, const ServerPhase& p) { return s.PerRpc(p.allocations.allocs); };
  auto frees = [](const ServerFigures& s, const ServerPhase& p) { return s.PerRpc(p.allocations.frees); };
  auto p99 = [](const ServerFigures&, const ServerPhase& p) { return p.latency.Percentile(99) / kUs; };
  f.push_back(Phase("server_build_allocs_per_rpc", "build allocs/RPC", 1, &ServerFigures::build, allocs));
  f.push_back(Phase("server_serialize_allocs_per_rpc", "serialize allocs/RPC", 1, &ServerFigures::serialize, allocs));
  f.push_back(Phase("server_release_allocs_per_rpc", "release allocs/RPC", 1, &ServerFigures::release, allocs));
  f.push_back(Phase("server_release_frees_per_rpc", "release frees/RPC", 1, &ServerFigures::release, frees));
  f.push_back(Server("server_process_allocs_per_rpc", "process allocs/RPC", 1, [](const ServerFigures& s) {
    return s.process_counted ? Value(s.PerRpc(s.process.allocs)) : Value();
  }));
  f.push_back(Phase("server_build_kib_per_rpc", "build KiB allocated/RPC", 1, &ServerFigures::build,
                    [](const ServerFigures& s, const ServerPhase& p) { return s.PerRpc(p.allocations.bytes) / 1024; }));
  f.push_back(Server("server_process_kib_per_rpc", "process KiB allocated/RPC", 1, [](const ServerFigures& s) {
    return s.process_counted ? Value(s.PerRpc(s.process.bytes) / 1024) : Value();
  }));
  f.push_back(Phase("server_build_p99_us", "build p99 (us)", 1, &ServerFigures::build, p99));
  f.push_back(Phase("server_serialize_p99_us", "serialize p99 (us)", 1, &ServerFigures::serialize, p99));
  f.push_back(Phase("server_release_p99_us", "release p99 (us)", 1, &ServerFigures::release, p99));
}

// The server process: CPU, memory, the reply budget, malloc_trim, the arenas.
void AddProcessFigures(std::vector<Figure>* out) {
  std::vector<Figure>& f = *out;
  f.push_back(Server("server_cpu_us_per_rpc", "server CPU/RPC (us)", 1,
                     [](const ServerFigures& s) { return s.CpuMicrosPerRpc(); }));
  f.push_back(
      Server("server_rss_mib", "server RSS (MiB)", 1, [](const ServerFigures& s) { return s.rss_bytes / kMiB; }));
  f.push_back(Server("server_peak_rss_mib", "server peak RSS (MiB)", 1,
                     [](const ServerFigures& s) { return s.peak_rss_bytes / kMiB; }));
  f.push_back(Server("server_refused_over_budget", "refused: reply budget", 0,
                     [](const ServerFigures& s) { return s.from_reco_server() ? Value(s.rpc_over_budget) : Value(); }));
  f.push_back(Server("server_abandoned", "abandoned mid-build", 0,
                     [](const ServerFigures& s) { return s.from_reco_server() ? Value(s.rpc_abandoned) : Value(); }));
  f.push_back(Server("server_budget_peak_mib", "reply budget peak (MiB)", 1, [](const ServerFigures& s) {
    return s.budget_enabled ? Value(s.budget_peak_bytes / kMiB) : Value();
  }));
  f.push_back(Server("server_trims", "malloc_trim calls", 0, [](const ServerFigures& s) {
    return s.malloc_heap_available && s.from_reco_server() ? Value(s.trims) : Value();
  }));
  f.push_back(Server("server_heap_free_mib", "malloc free bytes (MiB)", 2, [](const ServerFigures& s) {
    return s.malloc_heap_available ? Value(s.heap_free_bytes / kMiB) : Value();
  }));
  f.push_back(Server("server_arena_kib_per_response", "arena space/response (KiB)", 1, [](const ServerFigures& s) {
    return s.arena_space_allocated ? Value(s.PerRelease(s.arena_space_allocated) / 1024) : Value();
  }));
  f.push_back(Server("server_arena_overflows", "arena overflows", 0, [](const ServerFigures& s) {
    const bool pool_of_the_stats_library = s.store_available && !s.from_reco_server();
    return s.arena_space_allocated || pool_of_the_stats_library ? Value(s.arena_overflows) : Value();
  }));
  f.push_back(Server("server_pool_unpooled", "leases unpooled (pool empty)", 0,
                     [](const ServerFigures& s) { return s.store_available ? Value(s.unpooled) : Value(); }));
}

}  // namespace

std::vector<Figure> ReportFigures(const LoadOptions& options) {
  std::vector<Figure> f;
  AddClientFigures(options, &f);
  AddPhaseFigures(&f);
  AddProcessFigures(&f);
  return f;
}

std::vector<Figure> ShownFigures(const RunReport& report, std::vector<std::string>* left_out) {
  std::vector<Figure> shown;
  for (Figure& f : ReportFigures(report.options)) {
    const bool any = std::any_of(report.targets.begin(), report.targets.end(),
                                 [&f](const TargetResult& t) { return f.Of(t).has_value(); });
    if (any || report.targets.empty()) {
      shown.push_back(std::move(f));
    } else if (left_out != nullptr) {
      left_out->push_back(f.label);
    }
  }
  return shown;
}

std::string LeftOutLine(const std::vector<std::string>& left_out) {
  if (left_out.empty()) return "";
  return absl::StrCat("left out, no target reported them: ", absl::StrJoin(left_out, ", "));
}

std::string FormatFigure(const Figure& figure, std::optional<double> value) {
  if (!value) return "n/a";
  return absl::StrFormat("%.*f", figure.decimals, *value);
}

std::optional<PairedRatio> RatioToBaseline(const RunReport& report, size_t target, const Figure& figure) {
  return RatioBetween(report, target, 0, figure);
}

std::optional<PairedRatio> RatioBetween(const RunReport& report, size_t target, size_t baseline, const Figure& figure) {
  if (!figure.has_ratio || target >= report.targets.size() || baseline >= report.targets.size()) return std::nullopt;
  auto per_round = [&figure](const TargetResult& t) {
    std::vector<std::optional<double>> values;
    for (const RoundResult& r : t.rounds) values.push_back(figure.Of(r));
    return values;
  };
  return PairRounds(per_round(report.targets[target]), per_round(report.targets[baseline]));
}

std::string ReplicaShareLine(const TargetResult& t) {
  std::vector<std::string> parts;
  double lo = 100, hi = 0;
  std::string previous_host;
  for (const ReplicaFigures& r : t.replicas) {
    const size_t colon = r.address.rfind(':');
    const std::string host = r.address.substr(0, colon);
    std::string label = host == previous_host ? r.address.substr(colon) : r.address;
    previous_host = host;
    if (!r.server.available) {
      parts.push_back(absl::StrCat(label, " n/a"));
      continue;
    }
    const double share = t.server.rpcs ? 100.0 * r.server.rpcs / t.server.rpcs : 0;
    lo = std::min(lo, share);
    hi = std::max(hi, share);
    parts.push_back(absl::StrFormat("%s %.0f%%", label, share));
  }
  return absl::StrFormat("%s replicas: %s (spread %.0f-%.0f%% of %u server RPCs)", t.spec.name,
                         absl::StrJoin(parts, ", "), lo, hi, t.server.rpcs);
}

}  // namespace reco
