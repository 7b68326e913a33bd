// See catalogue.h.
#include "core/catalogue.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/item_generator.h"
#include "core/request.h"
#include "core/splitmix.h"

namespace reco {

absl::Status ValidateCatalogueOptions(const CatalogueOptions& options) {
  if (options.items_per_profile < 1 || options.items_per_profile > kMaxCatalogueItems) {
    return absl::InvalidArgumentError(absl::StrCat("catalogue_items is ", options.items_per_profile,
                                                   "; it must be between 1 and ", kMaxCatalogueItems));
  }
  return absl::OkStatus();
}

std::unique_ptr<const Catalogue> Catalogue::Build(const CatalogueOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Catalogue> c(new Catalogue);
  c->options_ = options;
  c->options_.items_per_profile = std::clamp<uint32_t>(options.items_per_profile, 1, kMaxCatalogueItems);
  GenerateCatalogueItems(options.seed, c->size(), v1::TEXT_PROFILE_REALISTIC, &c->realistic_);
  GenerateCatalogueItems(options.seed, c->size(), v1::TEXT_PROFILE_COMPACT, &c->compact_);
  for (const auto* items : {&c->realistic_, &c->compact_}) {
    c->space_used_bytes_ += items->SpaceUsedExcludingSelfLong();
  }
  Serialize(c->realistic_, &c->realistic_fragments_);
  Serialize(c->compact_, &c->compact_fragments_);
  c->build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

void Catalogue::Serialize(const google::protobuf::RepeatedPtrField<v1::Item>& items, Fragments* out) {
  out->offsets.reserve(items.size() + 1);
  out->offsets.push_back(0);
  for (const v1::Item& item : items) {
    item.AppendToString(&out->bytes);
    out->offsets.push_back(out->bytes.size());
  }
  out->bytes.shrink_to_fit();
}

uint64_t Catalogue::fragment_bytes() const {
  return realistic_fragments_.bytes.size() + compact_fragments_.bytes.size();
}

std::shared_ptr<const Catalogue> Catalogue::Shared(const CatalogueOptions& options) {
  static std::mutex mu;
  static auto* built = new std::map<std::pair<uint64_t, uint32_t>, std::shared_ptr<const Catalogue>>;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<const Catalogue>& slot = (*built)[{options.seed, options.items_per_profile}];
  if (slot == nullptr) slot = Build(options);
  return slot;
}

const Catalogue& DefaultCatalogue() {
  static const Catalogue* const catalogue = Catalogue::Shared(CatalogueOptions()).get();  // kept by Shared
  return *catalogue;
}

ItemPicks Catalogue::Picks(const v1::RecommendRequest& request) const {
  const uint32_t size = this->size();
  const uint32_t count = std::min(EffectiveItemCount(request), size);
  const uint64_t key = Mix64(Fnv1a(request.user_id()) ^ Mix64(request.seed() + 0x9e3779b97f4a7c15ULL) ^
                             (uint64_t{count} << 32) ^ static_cast<uint64_t>(request.text_profile()));
  // A stride coprime with the size visits every index once before repeating.
  uint64_t stride = size == 1 ? 1 : 1 + Mix64(key) % (size - 1);
  while (std::gcd(stride, uint64_t{size}) != 1) stride = stride % (size - 1) + 1;  // stays in [1, size-1]; 1 ends it
  return ItemPicks(count, size, key % size, stride);
}

}  // namespace reco
