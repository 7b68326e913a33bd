// See target_warnings.h.
#include "client/target_warnings.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace reco {
namespace {

void AddErrorWarning(const TargetResult& t, std::vector<std::string>* warnings) {
  const ClientFigures& c = t.client;
  if (c.errors() == 0) return;
  std::vector<std::string> parts;
  for (int code = 1; code < ClientFigures::kStatusCodes; ++code) {
    if (c.errors_by_code[code]) parts.push_back(absl::StrCat(StatusCodeName(code), " ", c.errors_by_code[code]));
  }
  if (c.wrong_item_count) parts.push_back(absl::StrCat("wrong item count ", c.wrong_item_count));
  if (c.wrong_content) parts.push_back(absl::StrCat("wrong content ", c.wrong_content));
  warnings->push_back(
      absl::StrCat(t.spec.name, ": ", c.errors(), " errors of ", c.completed, " (", absl::StrJoin(parts, ", "), ")"));
}

void AddScheduleWarning(const LoadOptions& o, const TargetResult& t, std::vector<std::string>* warnings) {
  const ClientFigures& c = t.client;
  if (!o.open_loop()) return;
  const int64_t lag_p99 = static_cast<int64_t>(c.schedule_lag.Percentile(99));
  if (c.unsent == 0 && lag_p99 <= kLagWarningNanos) return;
  warnings->push_back(
      absl::StrFormat("%s: the client fell behind its schedule of %g req/s: schedule lag p99 %.1f ms, max %.1f ms; "
                      "%d of %d scheduled requests never sent (raise --concurrency or lower --rate)",
                      t.spec.name, o.rate, lag_p99 / 1e6, c.schedule_lag.max() / 1e6, c.unsent, c.scheduled));
}

// With balanced calls each of N replicas serves about 1/N of them; one under half of
// that is a skew a reader must see (pick_first, or a connection pinned to a pod).
void AddReplicaSkewWarnings(const LoadOptions& o, const TargetResult& t, std::vector<std::string>* warnings) {
  if (t.replicas.size() <= 1 || !t.server.available || t.server.rpcs == 0) return;
  const double fair = 1.0 / t.replicas.size();
  for (const ReplicaFigures& r : t.replicas) {
    const double share = static_cast<double>(r.server.rpcs) / t.server.rpcs;
    if (share < fair / 2) {
      warnings->push_back(absl::StrFormat(
          "%s: replica %s served %.0f%% of the RPCs, under half its fair share (%.0f%% of %d replicas; --lb_policy %s)",
          t.spec.name, r.address, 100 * share, 100 * fair, static_cast<int>(t.replicas.size()), o.lb_policy));
    }
  }
}

void AddServerSideWarning(const TargetResult& t, std::vector<std::string>* warnings) {
  if (!t.server.available) {
    warnings->push_back(
        absl::StrCat(t.spec.name, ": server-side figures unavailable (", t.server.note, "); client-side figures only"));
    return;
  }
  if (!t.server.note.empty()) warnings->push_back(absl::StrCat(t.spec.name, ": ", t.server.note));
  // The allocation rows then read n/a: say why once, not leave the reader to guess.
  if (!t.server.process_counted) {
    warnings->push_back(absl::StrCat(t.spec.name,
                                     ": allocations not counted: the program or an LD_PRELOAD defines "
                                     "malloc ahead of the server's allocation counter (its malloc: ",
                                     t.server.malloc.empty() ? "unknown" : t.server.malloc, ")"));
  }
}

}  // namespace

void AddTargetWarnings(const RunReport& report, const TargetResult& target, std::vector<std::string>* warnings) {
  AddErrorWarning(target, warnings);
  AddScheduleWarning(report.options, target, warnings);
  AddReplicaSkewWarnings(report.options, target, warnings);
  AddServerSideWarning(target, warnings);
}

}  // namespace reco
