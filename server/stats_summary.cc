// See stats_summary.h.
#include "server/stats_summary.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace reco {
namespace {

double PerRpc(uint64_t total, uint64_t rpcs) { return rpcs ? static_cast<double>(total) / rpcs : 0.0; }

std::string PhaseLine(const char* name, const v1::PhaseStats& phase, uint64_t rpcs) {
  const v1::Histogram& h = phase.latency();
  if (h.count() == 0) return absl::StrFormat("%-10s  (not measured in this window)\n", name);
  return absl::StrFormat("%-10s %8.1f %8.1f %8.1f %11.1f %10.1f %11.0f\n", name, h.p50_ns() / 1e3, h.p99_ns() / 1e3,
                         static_cast<double>(h.sum_ns()) / h.count() / 1e3, PerRpc(phase.allocations().allocs(), rpcs),
                         PerRpc(phase.allocations().frees(), rpcs), PerRpc(phase.allocations().bytes(), rpcs));
}

}  // namespace

std::string FormatStatsSummary(const v1::StatsSnapshot& s) {
  std::string out = absl::StrFormat("reco_server summary: mode=%s malloc=%s window=%.1fs grpc=%s protobuf=%s\n",
                                    s.mode(), s.malloc(), s.window_seconds(), s.grpc_version(), s.protobuf_version());
  absl::StrAppendFormat(&out, "rpcs=%d errors=%d (invalid %d, over budget %d, abandoned %d)  (%.0f rpc/s)\n", s.rpcs(),
                        s.rpc_errors(), s.rpc_invalid(), s.rpc_over_budget(), s.rpc_abandoned(),
                        s.window_seconds() > 0 ? s.rpcs() / s.window_seconds() : 0.0);
  absl::StrAppend(&out, "phase        p50_us   p99_us  mean_us  allocs/rpc  frees/rpc   bytes/rpc\n");
  absl::StrAppend(&out, PhaseLine("build", s.build(), s.rpcs()));
  absl::StrAppend(&out, PhaseLine("serialize", s.serialize(), s.rpcs()));
  absl::StrAppend(&out, PhaseLine("release", s.release(), s.rpcs()));
  absl::StrAppendFormat(&out, "process: %.1f allocs/rpc (%d allocs, %d frees, %d bytes)\n",
                        PerRpc(s.process_allocations().allocs(), s.rpcs()), s.process_allocations().allocs(),
                        s.process_allocations().frees(), s.process_allocations().bytes());
  absl::StrAppendFormat(&out, "cpu: user %.2fs system %.2fs (%.1f us/rpc)  rss %.1f MiB  peak %.1f MiB\n",
                        s.cpu_user_seconds(), s.cpu_system_seconds(),
                        s.rpcs() ? (s.cpu_user_seconds() + s.cpu_system_seconds()) * 1e6 / s.rpcs() : 0.0,
                        s.rss_bytes() / 1048576.0, s.peak_rss_bytes() / 1048576.0);
  if (s.malloc_heap().available()) {
    absl::StrAppendFormat(&out, "glibc heap: %.1f MiB from the system, %.1f MiB in use, %.1f MiB free\n",
                          s.malloc_heap().arena_bytes() / 1048576.0, s.malloc_heap().in_use_bytes() / 1048576.0,
                          s.malloc_heap().free_bytes() / 1048576.0);
  }
  if (s.has_store()) {
    const v1::StoreStats& st = s.store();
    absl::StrAppendFormat(&out,
                          "store: acquired %d released %d created %d idle %d in_use %d overflows %d unpooled %d "
                          "oversized %d\n",
                          st.acquired(), st.released(), st.created(), st.idle(), st.in_use(), st.arena_overflows(),
                          st.unpooled(), st.oversized());
  }
  if (s.budget().enabled()) {
    const v1::BudgetStats& b = s.budget();
    absl::StrAppendFormat(&out,
                          "reply budget: %.1f of %.1f MiB in use, peak %.1f MiB; %d admitted, %d refused "
                          "(%d past a connection's share, %d past a client's, %d of clients refused for a while), "
                          "%d cancelled for holding it\n",
                          b.in_use_bytes() / 1048576.0, b.capacity_bytes() / 1048576.0, b.peak_bytes() / 1048576.0,
                          b.admitted(), b.refused(), b.refused_connection_share(), b.refused_client_share(),
                          b.refused_client_penalty(), b.cancelled_held());
  }
  if (s.trim().enabled()) {
    absl::StrAppendFormat(&out, "trim: %d malloc_trim calls, %.3f s in them, %.1f MiB RSS given back\n",
                          s.trim().trims(), s.trim().trim_seconds(), s.trim().rss_bytes_returned() / 1048576.0);
  }
  return out;
}

}  // namespace reco
