// BM_CopyItems: two ways of copying a reply's items out of the catalogue
// (core/catalogue.h), on the four memory modes, for a 200-item reply in both text
// profiles:
//
//   how:copyfrom   item->CopyFrom(stored), what BuildResponse does: the generated
//                  MergeFrom, which copies each non-empty field and creates each
//                  present sub-message before merging into it.
//   how:fieldwise  set_x(stored.x()) for every field, tags and numbers Reserve + add,
//                  sub-messages field by field: what hand-written copying code does.
//
//   BM_CopyItems/mode:arena_pool/items:200/profile:compact/how:fieldwise/manual_time
//
// Only the copy is timed and metered (manual time, AllocationMeter around it): the
// lease is acquired before and released after, and no scores, request id or
// metadata are written, so the two differ in nothing but the copy. The picks are
// BuildResponse's for the ledger's request (bench_case.h), so the items copied are
// the ones a reply holds. Both ways must give the same message: a benchmark whose
// fieldwise copy serializes differently from CopyFrom's stops with an error (a field
// added to Item and not copied here).
//
// Counters, per iteration: allocs, frees, bytes_alloc (allocation_meter.h);
// bytes_per_second counts the copied items' serialized bytes.
#include <chrono>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "bench/allocation_meter.h"
#include "bench/bench_case.h"
#include "bench/benchmark_families.h"
#include "core/catalogue.h"
#include "core/message_store.h"

namespace reco::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Items = google::protobuf::RepeatedPtrField<v1::Item>;

constexpr uint32_t kReplyItems = 200;
// The allocation ledger's warm-up (LedgerOptions::warmup_responses): pools fill.
constexpr int kWarmupReplies = 3;

enum class CopyHow { kCopyFrom, kFieldwise };

const char* HowName(CopyHow how) { return how == CopyHow::kCopyFrom ? "copyfrom" : "fieldwise"; }

// set_x(const std::string&) copies into the field's string: one allocation for text
// over 15 bytes, none for short text, the same as CopyFrom.
void CopyFieldwise(const v1::Item& from, v1::Item* to) {
  to->set_item_id(from.item_id());
  to->set_title(from.title());
  to->set_description(from.description());
  to->set_url(from.url());
  to->mutable_tags()->Reserve(from.tags_size());
  for (const std::string& tag : from.tags()) to->add_tags(tag);
  to->mutable_category_ids()->Reserve(from.category_ids_size());
  for (uint32_t id : from.category_ids()) to->add_category_ids(id);
  if (from.has_price()) {
    const v1::Price& p = from.price();
    v1::Price* q = to->mutable_price();
    q->set_amount_micros(p.amount_micros());
    q->set_list_price_micros(p.list_price_micros());
    q->set_currency_code(p.currency_code());
    q->set_discount_percent(p.discount_percent());
  }
  if (from.has_image()) {
    const v1::Image& p = from.image();
    v1::Image* q = to->mutable_image();
    q->set_url(p.url());
    q->set_alt_text(p.alt_text());
    q->set_width(p.width());
    q->set_height(p.height());
  }
  if (from.has_rating()) {
    const v1::Rating& p = from.rating();
    v1::Rating* q = to->mutable_rating();
    q->set_average(p.average());
    q->set_count(p.count());
    q->mutable_star_histogram()->Reserve(p.star_histogram_size());
    for (uint32_t stars : p.star_histogram()) q->add_star_histogram(stars);
  }
  if (from.has_seller()) {
    const v1::Seller& p = from.seller();
    v1::Seller* q = to->mutable_seller();
    q->set_seller_id(p.seller_id());
    q->set_display_name(p.display_name());
    q->set_reputation(p.reputation());
    q->set_verified(p.verified());
  }
  if (from.has_shipping()) {
    const v1::Shipping& p = from.shipping();
    v1::Shipping* q = to->mutable_shipping();
    q->set_min_days(p.min_days());
    q->set_max_days(p.max_days());
    q->set_cost_micros(p.cost_micros());
    q->set_ships_from(p.ships_from());
    q->set_free_shipping(p.free_shipping());
  }
  // scores: per request (core/reply_parts.h); catalogue items have none.
}

// The reply's items, copied one way, into `items` (empty: new, Clear()ed or on a
// fresh arena), the way BuildResponse lays them out.
template <CopyHow how>
void CopyItems(const Catalogue& catalogue, const ItemPicks& picks, v1::TextProfile profile, Items* items) {
  items->Reserve(static_cast<int>(picks.count()));
  for (uint32_t i = 0; i < picks.count(); ++i) {
    const v1::Item& stored = catalogue.item(profile, picks.at(i));
    v1::Item* item = items->Add();
    if constexpr (how == CopyHow::kCopyFrom) {
      item->CopyFrom(stored);
    } else {
      CopyFieldwise(stored, item);
    }
  }
}

// The serialized bytes of a reply holding only the copied items.
template <CopyHow how>
std::string CopiedBytes(const Catalogue& catalogue, const ItemPicks& picks, v1::TextProfile profile) {
  v1::RecommendResponse reply;
  CopyItems<how>(catalogue, picks, profile, reply.mutable_items());
  return reply.SerializeAsString();
}

template <CopyHow how>
void CopyItemsBenchmark(benchmark::State& state, const BenchCase& c) {
  const Catalogue& catalogue = DefaultCatalogue();
  const ItemPicks picks = catalogue.Picks(c.Request());
  const std::string copied = CopiedBytes<how>(catalogue, picks, c.profile);
  if (copied != CopiedBytes<CopyHow::kCopyFrom>(catalogue, picks, c.profile)) {
    state.SkipWithError("the fieldwise copy differs from CopyFrom's: a field of Item is not copied");
    return;
  }
  std::unique_ptr<MessageStore> store = MakeMessageStore(c.mode, {});
  for (int i = 0; i < kWarmupReplies; ++i) {
    MessageLease lease = store->Acquire();
    CopyItems<how>(catalogue, picks, c.profile, lease.response->mutable_items());
    store->Release(lease);
  }
  AllocationMeter meter;
  for (auto _ : state) {
    MessageLease lease = store->Acquire();
    Items* items = lease.response->mutable_items();
    const Clock::time_point t0 = Clock::now();
    meter.Start();
    CopyItems<how>(catalogue, picks, c.profile, items);
    meter.Stop();
    const Clock::time_point t1 = Clock::now();
    benchmark::DoNotOptimize(items);
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    store->Release(lease);
  }
  meter.Report(state);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * picks.count()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * copied.size()));
}

}  // namespace

void RegisterCatalogueBenchmarks() {
  for (v1::TextProfile profile : GridProfiles()) {
    for (MemoryMode mode : AllMemoryModes()) {
      const BenchCase c{mode, kReplyItems, profile};
      for (CopyHow how : {CopyHow::kCopyFrom, CopyHow::kFieldwise}) {
        auto run = how == CopyHow::kCopyFrom ? CopyItemsBenchmark<CopyHow::kCopyFrom>
                                             : CopyItemsBenchmark<CopyHow::kFieldwise>;
        benchmark::RegisterBenchmark(absl::StrCat(c.Name("BM_CopyItems"), "/how:", HowName(how)).c_str(),
                                     [run, c](benchmark::State& state) { run(state, c); })
            ->Unit(benchmark::kMicrosecond)
            ->UseManualTime();
      }
    }
  }
}

}  // namespace reco::bench
