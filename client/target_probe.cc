// See target_probe.h.
#include "client/target_probe.h"

#include "absl/strings/str_cat.h"
#include "client/run_report.h"

namespace reco {
namespace {

// The catalogue a target's replies are built from: the one its stats report, or the
// default one for a target without stats.
absl::StatusOr<CatalogueOptions> CatalogueOf(const TargetSpec& spec,
                                             const absl::StatusOr<v1::StatsSnapshot>& snapshot) {
  CatalogueOptions catalogue;
  if (!snapshot.ok() || !snapshot->has_catalogue()) return catalogue;
  catalogue.seed = snapshot->catalogue().seed();
  catalogue.items_per_profile = snapshot->catalogue().items_per_profile();
  if (absl::Status valid = ValidateCatalogueOptions(catalogue); !valid.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(spec.name, " reports a catalogue reco_load cannot build: ", valid.message()));
  }
  return catalogue;
}

}  // namespace

v1::RecommendRequest RequestShape(const LoadOptions& options) {
  v1::RecommendRequest shape;
  shape.set_item_count(options.items);
  shape.set_text_profile(options.profile);
  shape.set_seed(options.seed);
  return shape;
}

const RequestSet* RequestSets::Generic() {
  if (!generic_)
    generic_ =
        std::make_unique<RequestSet>(call_.method, call_.requests, call_.server_streaming, call_.client_streaming);
  return generic_.get();
}

const RequestSet* RequestSets::For(const CatalogueOptions& catalogue, int variants) {
  for (const auto& set : sets_) {
    const CatalogueOptions& c = set->catalogue().options();
    if (c.seed == catalogue.seed && c.items_per_profile == catalogue.items_per_profile && set->size() == variants) {
      return set.get();
    }
  }
  sets_.push_back(std::make_unique<RequestSet>(*Catalogue::Shared(catalogue), shape_, variants));
  return sets_.back().get();
}

absl::StatusOr<ProbedTarget> ProbeTarget(const TargetSpec& spec, const LoadOptions& options, RequestSets* sets,
                                         std::vector<std::string>* warnings) {
  ProbedTarget t;
  t.link = std::make_unique<TargetLink>(spec, options.connections, options.lookahead_bytes,
                                        options.max_receive_message_bytes, TlsDialOf(options), options.lb_policy);
  if (!t.link->replica_note().empty()) warnings->push_back(absl::StrCat(spec.name, ": ", t.link->replica_note()));
  // Stats first, for the catalogue; an unreachable target fails the probe below with
  // the clearer message.
  const absl::StatusOr<v1::StatsSnapshot> s = t.link->Snapshot(options.probe_deadline);
  bool ceiling = false;
  if (options.generic()) {
    t.requests = sets->Generic();
  } else {
    absl::StatusOr<CatalogueOptions> catalogue = CatalogueOf(spec, s);
    if (!catalogue.ok()) return catalogue.status();
    ceiling = IsCeilingTarget(spec.name, s.ok() ? s->mode() : "");
    t.requests = sets->For(*catalogue, ceiling ? 1 : options.variants);
  }
  if (absl::Status up = t.link->Probe(*t.requests, options.probe_deadline, options.metadata); !up.ok()) return up;
  t.has_stats = s.ok();
  if (!s.ok()) {
    t.stats_note = s.status().code() == absl::StatusCode::kUnimplemented
                       ? "not served: the target has no reco.v1.ServerStats service (docs/your-service.md adds it "
                         "to any C++ gRPC server)"
                       : std::string(s.status().message());
  }
  if (ceiling && options.variants > 1) {
    warnings->push_back(
        absl::StrCat(spec.name,
                     ": a ceiling server answers every request with one reply built at start-up; it was sent only "
                     "the first request (--variants ignored for it) and its replies were checked against that "
                     "request's bytes"));
  }
  return t;
}

}  // namespace reco
