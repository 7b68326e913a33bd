// See catalogue.h.
#include "core/catalogue.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/response_builder.h"

namespace reco {
namespace {

uint64_t Mix(uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t HashUser(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// The catalogue's items of one profile: a generated reply's items, scores removed.
void Fill(const CatalogueOptions& options, v1::TextProfile profile, v1::RecommendResponse* out) {
  v1::RecommendRequest request;
  request.set_user_id("catalogue");
  request.set_seed(options.seed);
  request.set_item_count(options.items_per_profile);
  request.set_text_profile(profile);
  BuildResponse(request, out);  // trusts its input: more than kMaxItemCount is fine here
  out->clear_request_id();
  out->clear_metadata();
  for (v1::Item& item : *out->mutable_items()) item.clear_scores();
}

}  // namespace

std::unique_ptr<const Catalogue> Catalogue::Build(const CatalogueOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Catalogue> c(new Catalogue);
  c->size_ = options.items_per_profile == 0 ? 1 : options.items_per_profile;
  CatalogueOptions effective = options;
  effective.items_per_profile = c->size_;
  Fill(effective, v1::TEXT_PROFILE_REALISTIC, &c->realistic_);
  Fill(effective, v1::TEXT_PROFILE_COMPACT, &c->compact_);
  c->space_used_bytes_ = c->realistic_.SpaceUsedLong() + c->compact_.SpaceUsedLong();
  c->build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

const v1::Item& Catalogue::item(v1::TextProfile profile, uint32_t index) const {
  const v1::RecommendResponse& items = profile == v1::TEXT_PROFILE_COMPACT ? compact_ : realistic_;
  return items.items(static_cast<int>(index));
}

void Catalogue::PickItems(const v1::RecommendRequest& request, std::vector<uint32_t>* picks) const {
  const uint32_t count = std::min(EffectiveItemCount(request), size_);
  const uint64_t key = Mix(HashUser(request.user_id()) ^ Mix(request.seed() + 0x9e3779b97f4a7c15ULL) ^
                           (uint64_t{count} << 32) ^ static_cast<uint64_t>(request.text_profile()));
  const uint64_t start = key % size_;
  // A stride coprime with the size visits every index once before repeating.
  uint64_t stride = size_ == 1 ? 1 : 1 + Mix(key) % (size_ - 1);
  while (std::gcd(stride, uint64_t{size_}) != 1) stride = stride % (size_ - 1) + 1;  // stays in [1, size-1]; 1 ends it
  picks->resize(count);
  uint64_t at = start;
  for (uint32_t i = 0; i < count; ++i) {
    (*picks)[i] = static_cast<uint32_t>(at);
    at += stride;
    if (at >= size_) at -= size_;
  }
}

}  // namespace reco
