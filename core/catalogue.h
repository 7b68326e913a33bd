// Catalogue: the items a recommendation service copies into its replies, built once
// at start-up.
//
// A recommendation service does not write its catalogue per request: it ranks
// candidates and copies stored item data into the reply. This catalogue holds, per
// text profile (item_generator.h), `items_per_profile` items with every static field
// and no RankingScores -- scores are computed per request (reply_parts.h). It is a
// pure function of its options, so a client (reco_load's verifier) that builds the
// catalogue with the server's options can check replies byte for byte; the server
// reports its options in StatsSnapshot.catalogue.
//
// Each item is also kept serialized (fragment()): the fragments mode splices those
// bytes into replies instead of copying messages (core/fragment_reply.h).
//
// Picks(request) chooses a reply's items: min(item_count, size()) distinct indexes,
// a deterministic function of (user_id, seed, item_count, profile) -- a start and a
// stride coprime with the catalogue's size, computed on the fly: picking costs no
// allocation and never repeats an item.
//
// Example:
//   std::shared_ptr<const reco::Catalogue> catalogue = reco::Catalogue::Shared({});
//   reco::ItemPicks picks = catalogue->Picks(request);
//   for (uint32_t i = 0; i < picks.count(); ++i)
//     use(catalogue->item(request.text_profile(), picks.at(i)));
//
// Thread-safety: immutable after Build(); every const method from any thread.
// Shared() may be called from any thread.
#ifndef ARENA_GRPC_CORE_CATALOGUE_H_
#define ARENA_GRPC_CORE_CATALOGUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/reco.pb.h"

namespace reco {

struct CatalogueOptions {
  uint64_t seed = 1;
  uint32_t items_per_profile = 10000;  // 1 to kMaxCatalogueItems
};
inline constexpr uint32_t kMaxCatalogueItems = 1000000;  // 100 times the default: a sane upper bound

// OK, or INVALID_ARGUMENT naming the bad option (flag-style: items_per_profile).
absl::Status ValidateCatalogueOptions(const CatalogueOptions& options);

// A reply's items: count() indexes into the catalogue, at(i) for i < count().
class ItemPicks {
 public:
  ItemPicks(uint32_t count, uint32_t catalogue_size, uint64_t start, uint64_t stride)
      : count_(count), size_(catalogue_size), start_(start), stride_(stride) {}
  uint32_t count() const { return count_; }
  uint32_t at(uint32_t i) const { return static_cast<uint32_t>((start_ + i * stride_) % size_); }

 private:
  uint32_t count_, size_;
  uint64_t start_, stride_;  // stride < size_ <= 1e6, i < 1e4: no overflow
};

class Catalogue {
 public:
  // options must pass ValidateCatalogueOptions.
  static std::unique_ptr<const Catalogue> Build(const CatalogueOptions& options);
  // The catalogue for `options`, built on first use and kept for the process's life:
  // tests, benchmarks and the load client's verifier share one instead of each
  // building its own (a process uses one or two).
  static std::shared_ptr<const Catalogue> Shared(const CatalogueOptions& options);

  const CatalogueOptions& options() const { return options_; }
  uint32_t size() const { return options_.items_per_profile; }  // items per profile
  const v1::Item& item(v1::TextProfile profile, uint32_t index) const {
    return (profile == v1::TEXT_PROFILE_COMPACT ? compact_ : realistic_).Get(static_cast<int>(index));
  }

  // item(profile, index), serialized once at Build(): fields 1-11 of an Item, in
  // field number order, as SerializeToString gives them.
  absl::string_view fragment(v1::TextProfile profile, uint32_t index) const {
    const Fragments& f = profile == v1::TEXT_PROFILE_COMPACT ? compact_fragments_ : realistic_fragments_;
    return absl::string_view(f.bytes).substr(f.offsets[index], f.offsets[index + 1] - f.offsets[index]);
  }

  // The items of a reply to `request` (item_count 0 means the service default).
  ItemPicks Picks(const v1::RecommendRequest& request) const;

  // What building took, what the items hold (SpaceUsedLong of both profiles), and the
  // fragments' bytes (both profiles).
  double build_seconds() const { return build_seconds_; }
  uint64_t space_used_bytes() const { return space_used_bytes_; }
  uint64_t fragment_bytes() const;

 private:
  Catalogue() = default;

  CatalogueOptions options_;
  struct Fragments {
    std::string bytes;              // every item's encoding, one after the other
    std::vector<uint64_t> offsets;  // item i is bytes[offsets[i], offsets[i + 1])
  };
  static void Serialize(const google::protobuf::RepeatedPtrField<v1::Item>& items, Fragments* out);

  google::protobuf::RepeatedPtrField<v1::Item> realistic_, compact_;
  Fragments realistic_fragments_, compact_fragments_;
  double build_seconds_ = 0;
  uint64_t space_used_bytes_ = 0;
};

// Shared(CatalogueOptions()): the catalogue reco_server serves by default. For tests
// and benchmarks; a server uses the catalogue its flags describe.
const Catalogue& DefaultCatalogue();

}  // namespace reco

#endif  // ARENA_GRPC_CORE_CATALOGUE_H_
