// The deterministic response generator. See response_builder.h.
#include "core/response_builder.h"

#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace reco {
namespace {

using v1::Item;
using v1::RecommendRequest;
using v1::RecommendResponse;

// splitmix64: tiny, fast, and good enough to make content look varied. Every value
// of the response comes from this stream, so it is what makes the output a pure
// function of the request.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  uint32_t Between(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(Next() % (uint64_t{hi} - lo + 1));
  }
  // Uniform in [0, 1).
  float Unit() { return static_cast<float>(Next() >> 40) / static_cast<float>(1 << 24); }

 private:
  uint64_t state_;
};

uint64_t HashString(absl::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

constexpr const char* kWords[] = {
    "wireless", "compact", "premium", "organic", "stainless", "portable", "classic",
    "ergonomic", "vintage", "modern", "waterproof", "lightweight", "durable", "smart",
    "handmade", "cotton", "leather", "bamboo", "ceramic", "carbon", "steel", "glass",
    "kitchen", "garden", "travel", "office", "outdoor", "studio", "family", "kids",
    "lamp", "backpack", "kettle", "headphones", "blender", "jacket", "sneakers", "desk",
    "chair", "speaker", "camera", "watch", "bottle", "knife", "pan", "tent", "blanket",
    "with", "and", "for", "edition", "set", "pack", "series", "pro", "max", "mini"};
constexpr int kWordCount = sizeof kWords / sizeof kWords[0];

constexpr const char* kRegions[] = {"US-CA", "US-NY", "DE-BE", "FR-IDF", "JP-13", "BR-SP", "IN-KA"};
constexpr const char* kWarehouses[] = {"Reno fulfilment centre", "Newark distribution hub",
                                       "Leipzig regional warehouse", "Osaka logistics park"};

// Text of exactly `len` bytes, made of words, written into buf (len <= 255).
size_t WriteWords(Rng& rng, size_t len, char* buf) {
  size_t n = 0;
  while (n < len) {
    const char* w = kWords[rng.Next() % kWordCount];
    size_t wl = std::strlen(w);
    if (n > 0) buf[n++] = ' ';
    size_t take = wl < len - n ? wl : len - n;
    std::memcpy(buf + n, w, take);
    n += take;
  }
  return len;
}

// A short code such as "k3f9a2c1": prefix plus hex digits, at most 15 bytes.
size_t WriteCode(char prefix, uint64_t value, int hex_digits, char* buf) {
  static constexpr char kHex[] = "0123456789abcdef";
  buf[0] = prefix;
  for (int i = 0; i < hex_digits; ++i) buf[1 + i] = kHex[(value >> (4 * (hex_digits - 1 - i))) & 0xf];
  return 1 + hex_digits;
}

void Assign(std::string* field, const char* data, size_t n) { field->assign(data, n); }

// Realistic text: lengths drawn from the ranges a catalogue shows (20 to 200 bytes).
void FillRealisticText(Rng& rng, uint64_t item_key, Item* item) {
  char buf[256];
  size_t n;
  n = std::snprintf(buf, sizeof buf, "item-%016llx", static_cast<unsigned long long>(item_key));
  Assign(item->mutable_item_id(), buf, n);
  Assign(item->mutable_title(), buf, WriteWords(rng, rng.Between(20, 70), buf));
  Assign(item->mutable_description(), buf, WriteWords(rng, rng.Between(30, 110), buf));
  n = std::snprintf(buf, sizeof buf, "https://shop.example.com/p/%016llx?ref=reco",
                    static_cast<unsigned long long>(item_key));
  Assign(item->mutable_url(), buf, n);

  int tags = static_cast<int>(rng.Between(2, 4));
  auto* tag_field = item->mutable_tags();
  tag_field->Reserve(tags);
  for (int t = 0; t < tags; ++t) {
    Assign(tag_field->Add(), buf, WriteWords(rng, rng.Between(6, 24), buf));
  }

  v1::Image* image = item->mutable_image();
  n = std::snprintf(buf, sizeof buf, "https://img.example-cdn.com/%016llx/800x800.jpg",
                    static_cast<unsigned long long>(item_key ^ 0x5bd1e995));
  Assign(image->mutable_url(), buf, n);
  Assign(image->mutable_alt_text(), buf, WriteWords(rng, rng.Between(20, 40), buf));

  v1::Seller* seller = item->mutable_seller();
  n = std::snprintf(buf, sizeof buf, "seller-%010u", rng.Between(0, 999999999));
  Assign(seller->mutable_seller_id(), buf, n);
  Assign(seller->mutable_display_name(), buf, WriteWords(rng, rng.Between(16, 32), buf));

  const char* warehouse = kWarehouses[rng.Next() % 4];
  item->mutable_shipping()->mutable_ships_from()->assign(warehouse, std::strlen(warehouse));
  static constexpr char kModel[] = "ranker-v3.2-2026-11";
  item->mutable_scores()->mutable_model_id()->assign(kModel, sizeof kModel - 1);
}

// Compact text: every string 15 bytes or less, so it fits the small-string buffer.
void FillCompactText(Rng& rng, uint64_t item_key, Item* item) {
  char buf[16];
  Assign(item->mutable_item_id(), buf, WriteCode('i', item_key, 12, buf));
  Assign(item->mutable_title(), buf, WriteCode('t', rng.Next(), 10, buf));
  Assign(item->mutable_description(), buf, WriteCode('d', rng.Next(), 14, buf));
  Assign(item->mutable_url(), buf, WriteCode('/', item_key, 12, buf));
  int tags = static_cast<int>(rng.Between(2, 4));
  auto* tag_field = item->mutable_tags();
  tag_field->Reserve(tags);
  for (int t = 0; t < tags; ++t) Assign(tag_field->Add(), buf, WriteCode('g', rng.Next(), 6, buf));
  v1::Image* image = item->mutable_image();
  Assign(image->mutable_url(), buf, WriteCode('m', item_key, 12, buf));
  Assign(image->mutable_alt_text(), buf, WriteCode('a', rng.Next(), 8, buf));
  v1::Seller* seller = item->mutable_seller();
  Assign(seller->mutable_seller_id(), buf, WriteCode('s', rng.Next(), 10, buf));
  Assign(seller->mutable_display_name(), buf, WriteCode('n', rng.Next(), 8, buf));
  const char* region = kRegions[rng.Next() % 7];
  item->mutable_shipping()->mutable_ships_from()->assign(region, std::strlen(region));
  item->mutable_scores()->mutable_model_id()->assign("rk3.2", 5);
}

// The numeric part of an item is the same in both profiles.
void FillNumbers(Rng& rng, Item* item) {
  auto* categories = item->mutable_category_ids();
  categories->Reserve(3);
  for (int c = 0; c < 3; ++c) categories->Add(rng.Between(1, 5000));

  v1::Price* price = item->mutable_price();
  int64_t list = int64_t{rng.Between(1, 500000)} * 10000;
  uint32_t discount = rng.Between(0, 40);
  price->set_list_price_micros(list);
  price->set_amount_micros(list / 100 * (100 - discount));
  price->set_discount_percent(discount);
  price->mutable_currency_code()->assign("USD", 3);

  v1::Image* image = item->mutable_image();
  image->set_width(800);
  image->set_height(rng.Between(400, 1200));

  v1::Rating* rating = item->mutable_rating();
  rating->set_average(1.0f + 4.0f * rng.Unit());
  rating->set_count(rng.Between(0, 20000));
  auto* histogram = rating->mutable_star_histogram();
  histogram->Reserve(5);
  for (int s = 0; s < 5; ++s) histogram->Add(rng.Between(0, 4000));

  v1::Seller* seller = item->mutable_seller();
  seller->set_reputation(rng.Unit());
  seller->set_verified(rng.Next() & 1);

  v1::Shipping* shipping = item->mutable_shipping();
  uint32_t min_days = rng.Between(1, 5);
  shipping->set_min_days(min_days);
  shipping->set_max_days(min_days + rng.Between(0, 7));
  shipping->set_free_shipping(rng.Between(0, 2) == 0);
  shipping->set_cost_micros(shipping->free_shipping() ? 0 : int64_t{rng.Between(1, 20)} * 1000000);

  v1::RankingScores* scores = item->mutable_scores();
  scores->set_relevance(rng.Unit());
  scores->set_personalization(rng.Unit());
  scores->set_freshness(rng.Unit());
  // Eight features: what a small ranking model reads per candidate.
  auto* features = scores->mutable_features();
  features->Reserve(8);
  for (int f = 0; f < 8; ++f) features->Add(rng.Unit() * 2.0f - 1.0f);
}

}  // namespace

uint32_t EffectiveItemCount(const RecommendRequest& request) {
  return request.item_count() == 0 ? kDefaultItemCount : request.item_count();
}

absl::Status ValidateRequest(const RecommendRequest& request) {
  if (request.item_count() > kMaxItemCount) {
    return absl::InvalidArgumentError(absl::StrCat("item_count is ", request.item_count(),
                                                   "; the limit is ", kMaxItemCount,
                                                   " (0 means the default, ", kDefaultItemCount, ")"));
  }
  if (!v1::TextProfile_IsValid(request.text_profile())) {
    return absl::InvalidArgumentError(
        absl::StrCat("text_profile ", static_cast<int>(request.text_profile()),
                     " is not known; use TEXT_PROFILE_REALISTIC (0) or TEXT_PROFILE_COMPACT (1)"));
  }
  return absl::OkStatus();
}

namespace {

// The one builder: `stop_requested` is asked before the first item and then every
// `check_every` items; when it says yes, the build ends there (returns false).
template <typename StopRequested>
bool Build(const RecommendRequest& request, RecommendResponse* response, StopRequested stop_requested,
           uint32_t check_every) {
  const bool compact = request.text_profile() == v1::TEXT_PROFILE_COMPACT;
  const uint32_t count = EffectiveItemCount(request);
  const uint64_t request_key =
      HashString(request.user_id()) ^ (request.seed() * 0x9e3779b97f4a7c15ULL) ^ (uint64_t{count} << 32) ^
      (compact ? 0x55 : 0);
  Rng rng(request_key);

  char buf[32];
  size_t n = compact ? WriteCode('r', request_key, 12, buf)
                     : std::snprintf(buf, sizeof buf, "req-%016llx", static_cast<unsigned long long>(request_key));
  response->mutable_request_id()->assign(buf, n);

  auto* items = response->mutable_items();
  items->Reserve(static_cast<int>(count));
  for (uint32_t i = 0; i < count; ++i) {
    if (i % check_every == 0 && stop_requested()) return false;
    Item* item = items->Add();
    uint64_t item_key = rng.Next();
    if (compact) {
      FillCompactText(rng, item_key, item);
    } else {
      FillRealisticText(rng, item_key, item);
    }
    FillNumbers(rng, item);
  }

  v1::ResponseMetadata* meta = response->mutable_metadata();
  if (compact) {
    meta->mutable_model_version()->assign("rk3.2", 5);
    meta->mutable_experiment_bucket()->assign("b07", 3);
  } else {
    static constexpr char kVersion[] = "ranker-v3.2-2026-11-candidate-gen";
    static constexpr char kBucket[] = "exp-arena-comparison/control";
    meta->mutable_model_version()->assign(kVersion, sizeof kVersion - 1);
    meta->mutable_experiment_bucket()->assign(kBucket, sizeof kBucket - 1);
  }
  meta->set_candidates_considered(count * 25);
  meta->set_generated_at_unix_ms(1767225600000LL + static_cast<int64_t>(request.seed() % 1000000000ULL));
  return true;
}

}  // namespace

void BuildResponse(const RecommendRequest& request, RecommendResponse* response) {
  // A constant "no" that the compiler folds away: the plain build pays nothing.
  Build(request, response, [] { return false; }, /*check_every=*/1);
}

bool BuildResponseUnlessStopped(const RecommendRequest& request, RecommendResponse* response,
                                absl::FunctionRef<bool()> stop_requested, uint32_t check_every) {
  return Build(request, response, stop_requested, check_every == 0 ? 1 : check_every);
}

absl::string_view TextProfileName(v1::TextProfile profile) {
  switch (profile) {
    case v1::TEXT_PROFILE_REALISTIC: return "realistic";
    case v1::TEXT_PROFILE_COMPACT: return "compact";
    default: return "unknown";
  }
}

bool ParseTextProfile(absl::string_view name, v1::TextProfile* profile) {
  if (name == "realistic") {
    *profile = v1::TEXT_PROFILE_REALISTIC;
  } else if (name == "compact") {
    *profile = v1::TEXT_PROFILE_COMPACT;
  } else {
    return false;
  }
  return true;
}

}  // namespace reco
