// ProbeTarget: the fail-fast step of a reco_load run. Before any load, each target
// is connected to, its reco.v1.ServerStats read (for the catalogue its server builds
// from), and one Recommend checked byte for byte against what core's builder makes
// for the same request (a generic run, --call: one call of the method, which must
// answer OK). An unreachable or wrong target ends the run with the probe's
// status naming it; a target without a stats service is still measured, client side
// only (has_stats false and stats_note says why).
//
// Example:
//   reco::RequestSets sets(options);
//   absl::StatusOr<reco::ProbedTarget> t = reco::ProbeTarget(spec, options, &sets, &warnings);
//   if (!t.ok()) return t.status();   // names the target
//   reco::LoadDriver driver(t->link.get(), t->requests, options);
//
// Thread-safety: one thread; RequestSets and the targets must outlive the drivers
// that use them.
#ifndef ARENA_GRPC_CLIENT_TARGET_PROBE_H_
#define ARENA_GRPC_CLIENT_TARGET_PROBE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/load_options.h"
#include "client/request_set.h"
#include "client/target_link.h"

namespace reco {

// The request every variant of a run is made from (items, profile, seed).
v1::RecommendRequest RequestShape(const LoadOptions& options);

// The request sets a run sends, one per (catalogue, variants) in use: targets whose
// servers build from the same catalogue share one (building the expected replies
// builds the catalogue's responses).
class RequestSets {
 public:
  explicit RequestSets(const LoadOptions& options) : shape_(RequestShape(options)), call_(options.call) {}

  // The set for this catalogue and number of variants, built on first use.
  const RequestSet* For(const CatalogueOptions& catalogue, int variants);
  // A generic run's one set (options.call), for every target.
  const RequestSet* Generic();

 private:
  const v1::RecommendRequest shape_;
  const CallSpec call_;
  std::vector<std::unique_ptr<RequestSet>> sets_;
  std::unique_ptr<RequestSet> generic_;
};

// One target after its probe: its connections, the requests it is sent (its replies
// are checked against theirs), and whether it serves reco.v1.ServerStats.
struct ProbedTarget {
  std::unique_ptr<TargetLink> link;
  const RequestSet* requests = nullptr;
  bool has_stats = false;
  std::string stats_note;  // why not, when !has_stats
};

// Connects to a target and checks one reply byte for byte before any load (fail
// fast). A ceiling server (reco_server --mode ceiling) answers every request with the
// one reply it serialized at start-up, for reco_load's first request by default: it
// is sent only that request, so that every reply is still checked against what the
// builder makes for the request sent.
absl::StatusOr<ProbedTarget> ProbeTarget(const TargetSpec& spec, const LoadOptions& options, RequestSets* sets,
                                         std::vector<std::string>* warnings);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_TARGET_PROBE_H_
