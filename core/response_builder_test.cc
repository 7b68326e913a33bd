#include "core/response_builder.h"

#include <map>
#include <memory>
#include <string>

#include "core/message_store.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

v1::RecommendRequest Request(uint32_t items, v1::TextProfile profile, uint64_t seed = 7) {
  v1::RecommendRequest r;
  r.set_user_id("user-42");
  r.set_item_count(items);
  r.set_text_profile(profile);
  r.set_seed(seed);
  return r;
}

std::string BuildIn(MemoryMode mode, const v1::RecommendRequest& request, ItemData item_data = ItemData::kCopied) {
  auto store = MakeMessageStore(mode, {});
  MessageLease lease = store->Acquire();
  BuildResponse(DefaultCatalogue(), request, lease.response, item_data);
  std::string bytes;
  EXPECT_TRUE(lease.response->SerializeToString(&bytes));
  store->Release(lease);
  return bytes;
}

class AllModesProduceTheSameBytes : public ::testing::TestWithParam<std::tuple<uint32_t, v1::TextProfile>> {};

TEST_P(AllModesProduceTheSameBytes, ForEveryMode) {
  auto [items, profile] = GetParam();
  v1::RecommendRequest request = Request(items, profile);
  std::string heap = BuildIn(MemoryMode::kHeap, request);
  v1::RecommendResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(heap));
  EXPECT_EQ(parsed.items_size(), static_cast<int>(items == 0 ? kDefaultItemCount : items));
  for (MemoryMode mode : AllMemoryModes()) {
    EXPECT_EQ(BuildIn(mode, request), heap) << MemoryModeName(mode);
    // Aliased on the arenas, refused and copied on the heap and reuse: the same bytes.
    EXPECT_EQ(BuildIn(mode, request, ItemData::kAliased), heap) << MemoryModeName(mode) << ", aliased";
  }
  // And a reused lease (a second response in the same store) gives the same bytes.
  auto store = MakeMessageStore(MemoryMode::kReuse, {});
  for (int i = 0; i < 2; ++i) {
    MessageLease lease = store->Acquire();
    BuildResponse(DefaultCatalogue(), request, lease.response);
    EXPECT_EQ(lease.response->SerializeAsString(), heap);
    store->Release(lease);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AllModesProduceTheSameBytes,
                         ::testing::Combine(::testing::Values(0u, 1u, 200u, 1000u),
                                            ::testing::Values(v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT)));

TEST(ResponseBuilderTest, SeedAndUserChangeTheContent) {
  auto base = Request(20, v1::TEXT_PROFILE_REALISTIC, 1);
  auto other_seed = Request(20, v1::TEXT_PROFILE_REALISTIC, 2);
  auto other_user = base;
  other_user.set_user_id("user-43");
  std::string a = BuildIn(MemoryMode::kHeap, base);
  EXPECT_NE(a, BuildIn(MemoryMode::kHeap, other_seed));
  EXPECT_NE(a, BuildIn(MemoryMode::kHeap, other_user));
}

TEST(ResponseBuilderTest, DefaultRealisticResponseIsAboutOneHundredKilobytes) {
  std::string bytes = BuildIn(MemoryMode::kHeap, Request(0, v1::TEXT_PROFILE_REALISTIC));
  EXPECT_GT(bytes.size(), 80u * 1000);
  EXPECT_LT(bytes.size(), 130u * 1000);
}

// A reply item is the catalogue item it was picked from, whole, plus this request's
// scores: nothing of the static data is left out, changed or added.
TEST(ResponseBuilderTest, ItemsCarryExactlyTheCatalogueItemsStaticFields) {
  const Catalogue& catalogue = DefaultCatalogue();
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    SCOPED_TRACE(TextProfileName(profile));
    const v1::RecommendRequest request = Request(200, profile);
    v1::RecommendResponse response;
    BuildResponse(catalogue, request, &response);
    const ItemPicks picks = catalogue.Picks(request);
    ASSERT_EQ(response.items_size(), static_cast<int>(picks.count()));
    for (int i = 0; i < response.items_size(); ++i) {
      v1::Item item = response.items(i);
      // Every item is ranked: three scores, eight features, the model's id.
      EXPECT_TRUE(item.has_scores()) << "item " << i;
      EXPECT_EQ(item.scores().features_size(), 8) << "item " << i;
      EXPECT_FALSE(item.scores().model_id().empty()) << "item " << i;
      item.clear_scores();
      std::string differences;
      google::protobuf::util::MessageDifferencer differencer;
      differencer.ReportDifferencesToString(&differences);
      EXPECT_TRUE(differencer.Compare(catalogue.item(profile, picks.at(i)), item))
          << "item " << i << " (catalogue index " << picks.at(i) << "): " << differences;
    }
  }
}

// The catalogue index of each item of a reply built from `catalogue`, with its scores.
std::map<uint32_t, v1::RankingScores> ScoresByIndex(const Catalogue& catalogue, const v1::RecommendRequest& request) {
  v1::RecommendResponse response;
  BuildResponse(catalogue, request, &response);
  const ItemPicks picks = catalogue.Picks(request);
  std::map<uint32_t, v1::RankingScores> scores;
  for (int i = 0; i < response.items_size(); ++i) scores[picks.at(i)] = response.items(i).scores();
  return scores;
}

// A catalogue of 50 items and 200-item requests: every reply holds all 50, once each,
// so two users' replies share every item -- and must score each one differently.
TEST(ResponseBuilderTest, ASmallCatalogueGivesEachItemOnceAndScoresItPerUser) {
  const std::unique_ptr<const Catalogue> small = Catalogue::Build({/*seed=*/3, /*items_per_profile=*/50});
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    SCOPED_TRACE(TextProfileName(profile));
    v1::RecommendRequest first = Request(200, profile), second = first;
    second.set_user_id("user-43");
    v1::RecommendResponse reply;
    BuildResponse(*small, first, &reply);
    EXPECT_EQ(reply.items_size(), 50);  // min(item_count, catalogue size)
    EXPECT_EQ(reply.metadata().candidates_considered(), 50u * 25);

    const std::map<uint32_t, v1::RankingScores> a = ScoresByIndex(*small, first), b = ScoresByIndex(*small, second);
    ASSERT_EQ(a.size(), 50u);  // 50 distinct indexes: no item twice
    ASSERT_EQ(b.size(), 50u);
    for (const auto& [index, scores] : a) {
      ASSERT_EQ(b.count(index), 1u) << index;
      EXPECT_FALSE(google::protobuf::util::MessageDifferencer::Equals(scores, b.at(index)))
          << "catalogue item " << index << " has the same scores for two users: " << scores.ShortDebugString();
    }

    // Fewer asked than the catalogue holds: exactly as many as asked.
    v1::RecommendResponse twenty;
    BuildResponse(*small, Request(20, profile), &twenty);
    EXPECT_EQ(twenty.items_size(), 20);
  }
}

// Walks every string of a response and applies f to it.
template <typename F>
void ForEachString(const v1::RecommendResponse& r, F f) {
  f(r.request_id());
  f(r.metadata().model_version());
  f(r.metadata().experiment_bucket());
  for (const v1::Item& item : r.items()) {
    for (const std::string* s :
         {&item.item_id(), &item.title(), &item.description(), &item.url(), &item.price().currency_code(),
          &item.image().url(), &item.image().alt_text(), &item.seller().seller_id(), &item.seller().display_name(),
          &item.shipping().ships_from(), &item.scores().model_id()}) {
      f(*s);
    }
    for (const std::string& tag : item.tags()) f(tag);
  }
}

TEST(ResponseBuilderTest, CompactProfileKeepsEveryStringWithinFifteenBytes) {
  v1::RecommendResponse r;
  BuildResponse(DefaultCatalogue(), Request(500, v1::TEXT_PROFILE_COMPACT), &r);
  ForEachString(r, [](const std::string& s) { EXPECT_LE(s.size(), kSmallStringBytes) << s; });
}

TEST(ResponseBuilderTest, RealisticProfileHasLongTextWithinTwentyToTwoHundredBytes) {
  v1::RecommendResponse r;
  BuildResponse(DefaultCatalogue(), Request(200, v1::TEXT_PROFILE_REALISTIC), &r);
  for (const v1::Item& item : r.items()) {
    for (const std::string* s : {&item.title(), &item.description(), &item.url(), &item.image().url()}) {
      EXPECT_GE(s->size(), 20u) << *s;
      EXPECT_LE(s->size(), 200u) << *s;
    }
  }
}

TEST(BuildResponseUnlessStoppedTest, NeverStoppedGivesTheSameBytesAndAsksEveryNItems) {
  const v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_REALISTIC);
  v1::RecommendResponse plain, checked;
  BuildResponse(DefaultCatalogue(), request, &plain);
  int asked = 0;
  EXPECT_TRUE(BuildResponseUnlessStopped(
      DefaultCatalogue(), request, &checked, [&] { return ++asked, false; }, /*check_every=*/16));
  EXPECT_EQ(checked.SerializeAsString(), plain.SerializeAsString());
  EXPECT_EQ(asked, 13);  // before items 0, 16, ..., 192
}

TEST(BuildResponseUnlessStoppedTest, StopsAtTheFirstCheckThatSaysYes) {
  const v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_COMPACT);
  v1::RecommendResponse stopped_at_once, stopped_later;
  EXPECT_FALSE(BuildResponseUnlessStopped(
      DefaultCatalogue(), request, &stopped_at_once, [] { return true; }, 16));
  EXPECT_EQ(stopped_at_once.items_size(), 0);
  int asked = 0;
  EXPECT_FALSE(BuildResponseUnlessStopped(
      DefaultCatalogue(), request, &stopped_later, [&] { return ++asked == 3; }, 16));
  EXPECT_EQ(stopped_later.items_size(), 32);  // items 0..31 built, stopped before item 32
  v1::RecommendResponse every_item;
  EXPECT_TRUE(BuildResponseUnlessStopped(
      DefaultCatalogue(), request, &every_item, [] { return false; }, /*check_every=*/0));
  EXPECT_EQ(every_item.items_size(), 200);
}

// ItemData::kAliased (reco_server --mode arena_alias) on an arena: each item's five
// static sub-messages ARE the catalogue's objects; on the heap they are copies (the
// pattern refuses there). Bytes: AllModesProduceTheSameBytes.
TEST(AliasedBuildTest, OnAnArenaTheStaticSubMessagesAreTheCataloguesOwn) {
  const Catalogue& catalogue = DefaultCatalogue();
  const v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_REALISTIC);
  const ItemPicks picks = catalogue.Picks(request);
  auto shared = [&](const v1::Item& item, uint32_t i) {
    const v1::Item& stored = catalogue.item(request.text_profile(), picks.at(i));
    return (&item.price() == &stored.price()) + (&item.image() == &stored.image()) +
           (&item.rating() == &stored.rating()) + (&item.seller() == &stored.seller()) +
           (&item.shipping() == &stored.shipping());
  };
  auto store = MakeMessageStore(MemoryMode::kArenaPool, {});
  MessageLease lease = store->Acquire();
  BuildResponse(catalogue, request, lease.response, ItemData::kAliased);
  v1::RecommendResponse heap;
  BuildResponse(catalogue, request, &heap, ItemData::kAliased);
  ASSERT_EQ(lease.response->items_size(), 200);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(shared(lease.response->items(i), i), 5) << "item " << i;
    EXPECT_EQ(shared(heap.items(i), i), 0) << "item " << i;
  }
  store->Release(lease);
}

// The aliased build copies an item's own fields one by one (response_builder.cc,
// TakeItemAliased): a field added to reco.v1.Item must be added there too.
TEST(AliasedBuildTest, KnowsEveryItemField) {
  const google::protobuf::Descriptor* item = v1::Item::descriptor();
  ASSERT_EQ(item->field_count(), 12) << "reco.v1.Item changed: add the new field to TakeItemAliased, then here";
  for (int number = 1; number <= 12; ++number) EXPECT_NE(item->FindFieldByNumber(number), nullptr) << number;
}

// The catalogue after many aliased replies, each released (Reset()) by the pool: every
// item still serializes to the bytes Catalogue::Build kept for it (fragment()).
TEST(AliasedBuildTest, CatalogueIsUnchangedAfterRepliesAndReset) {
  const std::unique_ptr<const Catalogue> catalogue = Catalogue::Build({/*seed=*/5, /*items_per_profile=*/300});
  auto store = MakeMessageStore(MemoryMode::kArenaPool, {});
  for (int reply = 0; reply < 50; ++reply) {
    const v1::TextProfile profile = reply % 2 ? v1::TEXT_PROFILE_COMPACT : v1::TEXT_PROFILE_REALISTIC;
    MessageLease lease = store->Acquire();
    BuildResponse(*catalogue, Request(200, profile, reply), lease.response, ItemData::kAliased);
    std::string bytes;
    ASSERT_TRUE(lease.response->SerializeToString(&bytes));
    store->Release(lease);
  }
  for (v1::TextProfile profile : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    for (uint32_t i = 0; i < catalogue->size(); ++i) {
      ASSERT_EQ(catalogue->item(profile, i).SerializeAsString(), catalogue->fragment(profile, i))
          << TextProfileName(profile) << " item " << i << " changed";
    }
  }
}

TEST(AliasedBuildTest, AsksAndStopsAsTheCopyingBuildDoes) {
  const v1::RecommendRequest request = Request(200, v1::TEXT_PROFILE_REALISTIC);
  auto store = MakeMessageStore(MemoryMode::kArenaPool, {});
  MessageLease lease = store->Acquire();
  int asked = 0;
  EXPECT_TRUE(BuildResponseUnlessStopped(
      DefaultCatalogue(), request, lease.response, [&] { return ++asked, false; }, 16, ItemData::kAliased));
  EXPECT_EQ(asked, 13);
  EXPECT_EQ(lease.response->SerializeAsString(), BuildIn(MemoryMode::kHeap, request));
  store->Release(lease);
  lease = store->Acquire();
  asked = 0;
  EXPECT_FALSE(BuildResponseUnlessStopped(
      DefaultCatalogue(), request, lease.response, [&] { return ++asked == 3; }, 16, ItemData::kAliased));
  EXPECT_EQ(lease.response->items_size(), 32);
  store->Release(lease);
}

}  // namespace
}  // namespace reco
