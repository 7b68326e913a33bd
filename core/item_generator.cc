// The catalogue's text and numbers. See item_generator.h.
#include "core/item_generator.h"

#include <cstdio>
#include <cstring>

#include "core/splitmix.h"

namespace reco {
namespace {

using v1::Item;

constexpr const char* kWords[] = {
    "wireless", "compact",    "premium",     "organic", "stainless", "portable", "classic",    "ergonomic", "vintage",
    "modern",   "waterproof", "lightweight", "durable", "smart",     "handmade", "cotton",     "leather",   "bamboo",
    "ceramic",  "carbon",     "steel",       "glass",   "kitchen",   "garden",   "travel",     "office",    "outdoor",
    "studio",   "family",     "kids",        "lamp",    "backpack",  "kettle",   "headphones", "blender",   "jacket",
    "sneakers", "desk",       "chair",       "speaker", "camera",    "watch",    "bottle",     "knife",     "pan",
    "tent",     "blanket",    "with",        "and",     "for",       "edition",  "set",        "pack",      "series",
    "pro",      "max",        "mini"};
constexpr int kWordCount = sizeof kWords / sizeof kWords[0];

constexpr const char* kRegions[] = {"US-CA", "US-NY", "DE-BE", "FR-IDF", "JP-13", "BR-SP", "IN-KA"};
constexpr const char* kWarehouses[] = {"Reno fulfilment centre", "Newark distribution hub",
                                       "Leipzig regional warehouse", "Osaka logistics park"};

// Text of exactly `len` bytes, made of words, written into buf (len <= 255).
size_t WriteWords(SplitMix64& rng, size_t len, char* buf) {
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

void Assign(std::string* field, const char* data, size_t n) { field->assign(data, n); }

void FillRealisticText(SplitMix64& rng, uint64_t item_key, Item* item) {
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
  for (int t = 0; t < tags; ++t) Assign(item->add_tags(), buf, WriteWords(rng, rng.Between(6, 24), buf));

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
  item->mutable_shipping()->mutable_ships_from()->assign(warehouse);
}

void FillCompactText(SplitMix64& rng, uint64_t item_key, Item* item) {
  char buf[16];
  Assign(item->mutable_item_id(), buf, WriteCode('i', item_key, 12, buf));
  Assign(item->mutable_title(), buf, WriteCode('t', rng.Next(), 10, buf));
  Assign(item->mutable_description(), buf, WriteCode('d', rng.Next(), 14, buf));
  Assign(item->mutable_url(), buf, WriteCode('/', item_key, 12, buf));
  int tags = static_cast<int>(rng.Between(2, 4));
  for (int t = 0; t < tags; ++t) Assign(item->add_tags(), buf, WriteCode('g', rng.Next(), 6, buf));
  v1::Image* image = item->mutable_image();
  Assign(image->mutable_url(), buf, WriteCode('m', item_key, 12, buf));
  Assign(image->mutable_alt_text(), buf, WriteCode('a', rng.Next(), 8, buf));
  v1::Seller* seller = item->mutable_seller();
  Assign(seller->mutable_seller_id(), buf, WriteCode('s', rng.Next(), 10, buf));
  Assign(seller->mutable_display_name(), buf, WriteCode('n', rng.Next(), 8, buf));
  item->mutable_shipping()->mutable_ships_from()->assign(kRegions[rng.Next() % 7]);
}

// The numeric part of an item is the same in both profiles.
void FillNumbers(SplitMix64& rng, Item* item) {
  for (int c = 0; c < 3; ++c) item->add_category_ids(rng.Between(1, 5000));

  v1::Price* price = item->mutable_price();
  int64_t list = int64_t{rng.Between(1, 500000)} * 10000;
  uint32_t discount = rng.Between(0, 40);
  price->set_list_price_micros(list);
  price->set_amount_micros(list / 100 * (100 - discount));
  price->set_discount_percent(discount);
  price->mutable_currency_code()->assign("USD");

  v1::Image* image = item->mutable_image();
  image->set_width(800);
  image->set_height(rng.Between(400, 1200));

  v1::Rating* rating = item->mutable_rating();
  rating->set_average(1.0f + 4.0f * rng.Unit());
  rating->set_count(rng.Between(0, 20000));
  for (int s = 0; s < 5; ++s) rating->add_star_histogram(rng.Between(0, 4000));

  v1::Seller* seller = item->mutable_seller();
  seller->set_reputation(rng.Unit());
  seller->set_verified(rng.Next() & 1);

  v1::Shipping* shipping = item->mutable_shipping();
  uint32_t min_days = rng.Between(1, 5);
  shipping->set_min_days(min_days);
  shipping->set_max_days(min_days + rng.Between(0, 7));
  shipping->set_free_shipping(rng.Between(0, 2) == 0);
  shipping->set_cost_micros(shipping->free_shipping() ? 0 : int64_t{rng.Between(1, 20)} * 1000000);
}

}  // namespace

size_t WriteCode(char prefix, uint64_t value, int hex_digits, char* buf) {
  static constexpr char kHex[] = "0123456789abcdef";
  buf[0] = prefix;
  for (int i = 0; i < hex_digits; ++i) buf[1 + i] = kHex[(value >> (4 * (hex_digits - 1 - i))) & 0xf];
  return 1 + hex_digits;
}

void GenerateCatalogueItems(uint64_t seed, uint32_t count, v1::TextProfile profile,
                            google::protobuf::RepeatedPtrField<Item>* items) {
  const bool compact = profile == v1::TEXT_PROFILE_COMPACT;
  items->Reserve(items->size() + static_cast<int>(count));
  for (uint32_t i = 0; i < count; ++i) {
    // Each item has its own stream: item i is the same whatever the catalogue's size.
    SplitMix64 rng(Mix64(seed * 0x9e3779b97f4a7c15ULL + i) ^ (compact ? 0x55 : 0));
    Item* item = items->Add();
    const uint64_t item_key = rng.Next();
    if (compact) {
      FillCompactText(rng, item_key, item);
    } else {
      FillRealisticText(rng, item_key, item);
    }
    FillNumbers(rng, item);
  }
}

}  // namespace reco
