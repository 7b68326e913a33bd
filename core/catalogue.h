// Catalogue: the items a recommendation service copies into its replies, built once
// at start-up -- the first step of issue 11 (a real workload). Not wired into the
// reply yet: BuildResponse still generates every reply's text per request.
//
// A recommendation service does not write its catalogue per request: it ranks
// candidates and copies stored item data into the reply. This catalogue holds, per
// text profile, `items_per_profile` items whose static parts (ids, title,
// description, urls, tags, categories, price, image, rating, seller, shipping) come
// from the project's generator (BuildResponse of a fixed catalogue request, so the
// text looks like a reply's), with the per-request part (RankingScores) left empty:
// the handler computes that per request. It is a pure function of its options, so a
// client (reco_load's verifier) can build the same catalogue and check replies byte
// for byte.
//
// PickItems chooses a reply's items: `count` distinct indexes, a deterministic
// function of (user_id, seed, count, profile) -- a start and a stride coprime with the
// catalogue's size, so it costs no allocation and never repeats an item.
//
// Example:
//   auto catalogue = reco::Catalogue::Build({/*seed=*/1, /*items_per_profile=*/10000});
//   std::vector<uint32_t> picks;
//   catalogue->PickItems(request, &picks);
//   const reco::v1::Item& first = catalogue->item(request.text_profile(), picks[0]);
//
// Thread-safety: immutable after Build(); every const method from any thread.
#ifndef ARENA_GRPC_CORE_CATALOGUE_H_
#define ARENA_GRPC_CORE_CATALOGUE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "proto/reco.pb.h"

namespace reco {

struct CatalogueOptions {
  uint64_t seed = 1;
  uint32_t items_per_profile = 10000;  // at least 1
};

class Catalogue {
 public:
  static std::unique_ptr<const Catalogue> Build(const CatalogueOptions& options);

  uint32_t size() const { return size_; }  // items per profile
  const v1::Item& item(v1::TextProfile profile, uint32_t index) const;

  // Replaces *picks with min(item_count, size()) distinct indexes in [0, size())
  // (item_count 0 means the service default, as in EffectiveItemCount).
  void PickItems(const v1::RecommendRequest& request, std::vector<uint32_t>* picks) const;

  // What building took and what the items hold (SpaceUsedLong of both profiles).
  double build_seconds() const { return build_seconds_; }
  uint64_t space_used_bytes() const { return space_used_bytes_; }

 private:
  Catalogue() = default;

  uint32_t size_ = 0;
  v1::RecommendResponse realistic_, compact_;  // their items are the catalogue
  double build_seconds_ = 0;
  uint64_t space_used_bytes_ = 0;
};

}  // namespace reco

#endif  // ARENA_GRPC_CORE_CATALOGUE_H_
