// Catalogue: a pure function of its options, static item parts only, items that do
// not depend on the catalogue's size, and picks that are distinct, deterministic and
// vary with the request.
#include "core/catalogue.h"

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace reco {
namespace {

v1::RecommendRequest Request(const std::string& user, uint64_t seed, uint32_t items,
                             v1::TextProfile profile = v1::TEXT_PROFILE_REALISTIC) {
  v1::RecommendRequest r;
  r.set_user_id(user);
  r.set_seed(seed);
  r.set_item_count(items);
  r.set_text_profile(profile);
  return r;
}

std::string AllBytes(const Catalogue& c) {
  std::string out;
  for (v1::TextProfile p : {v1::TEXT_PROFILE_REALISTIC, v1::TEXT_PROFILE_COMPACT}) {
    for (uint32_t i = 0; i < c.size(); ++i) out += c.item(p, i).SerializeAsString();
  }
  return out;
}

TEST(CatalogueTest, IsAPureFunctionOfItsOptions) {
  auto a = Catalogue::Build({/*seed=*/7, /*items_per_profile=*/500});
  auto b = Catalogue::Build({7, 500});
  auto other = Catalogue::Build({8, 500});
  EXPECT_EQ(a->size(), 500u);
  EXPECT_EQ(AllBytes(*a), AllBytes(*b));
  EXPECT_NE(AllBytes(*a), AllBytes(*other));
  EXPECT_GT(a->space_used_bytes(), 500u * 2 * 200) << "two profiles of 500 items";
  EXPECT_GE(a->build_seconds(), 0.0);
}

TEST(CatalogueTest, AnItemDoesNotDependOnTheCataloguesSize) {
  auto small = Catalogue::Build({7, 50});
  auto large = Catalogue::Build({7, 5000});
  for (uint32_t i = 0; i < 50; ++i) {
    EXPECT_EQ(small->item(v1::TEXT_PROFILE_REALISTIC, i).SerializeAsString(),
              large->item(v1::TEXT_PROFILE_REALISTIC, i).SerializeAsString());
  }
}

TEST(CatalogueTest, BadOptionsAreRefusedWithTheOptionNamed) {
  EXPECT_TRUE(ValidateCatalogueOptions({1, 1}).ok());
  absl::Status zero = ValidateCatalogueOptions({1, 0});
  EXPECT_EQ(zero.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zero.message().find("catalogue_items"), absl::string_view::npos) << zero;
  EXPECT_FALSE(ValidateCatalogueOptions({1, kMaxCatalogueItems + 1}).ok());
}

TEST(CatalogueTest, SharedBuildsOncePerOptions) {
  auto a = Catalogue::Shared({3, 20});
  EXPECT_EQ(a.get(), Catalogue::Shared({3, 20}).get());
  EXPECT_NE(a.get(), Catalogue::Shared({4, 20}).get());
  EXPECT_EQ(&DefaultCatalogue(), Catalogue::Shared(CatalogueOptions()).get());
}

TEST(CatalogueTest, HoldsStaticPartsOnlyAndBothProfiles) {
  auto c = Catalogue::Build({1, 300});
  std::set<std::string> ids;
  for (uint32_t i = 0; i < c->size(); ++i) {
    const v1::Item& realistic = c->item(v1::TEXT_PROFILE_REALISTIC, i);
    const v1::Item& compact = c->item(v1::TEXT_PROFILE_COMPACT, i);
    EXPECT_FALSE(realistic.has_scores()) << "scores are per request";
    EXPECT_FALSE(compact.has_scores());
    EXPECT_TRUE(realistic.has_price() && realistic.has_seller() && realistic.has_shipping());
    EXPECT_GE(realistic.title().size(), 20u);
    EXPECT_LE(compact.title().size(), 15u);
    ids.insert(realistic.item_id());
  }
  EXPECT_EQ(ids.size(), c->size()) << "item ids are distinct";
}

std::vector<uint32_t> Picked(const Catalogue& c, const v1::RecommendRequest& request) {
  ItemPicks picks = c.Picks(request);
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < picks.count(); ++i) out.push_back(picks.at(i));
  return out;
}

TEST(CatalogueTest, PicksAreDistinctDeterministicAndVaryWithTheRequest) {
  auto c = Catalogue::Build({1, 1000});
  std::vector<uint32_t> a = Picked(*c, Request("user-1", 5, 200));
  std::vector<uint32_t> again = Picked(*c, Request("user-1", 5, 200));
  std::vector<uint32_t> other_user = Picked(*c, Request("user-2", 5, 200));
  std::vector<uint32_t> other_seed = Picked(*c, Request("user-1", 6, 200));
  ASSERT_EQ(a.size(), 200u);
  EXPECT_EQ(std::set<uint32_t>(a.begin(), a.end()).size(), 200u) << "distinct";
  for (uint32_t i : a) EXPECT_LT(i, 1000u);
  EXPECT_EQ(a, again);
  EXPECT_NE(a, other_user);
  EXPECT_NE(a, other_seed);
  std::vector<uint32_t> defaulted = Picked(*c, Request("user-1", 5, 0));
  EXPECT_EQ(defaulted.size(), 200u) << "item_count 0 is the service default";
}

TEST(CatalogueTest, AskingForTheWholeCatalogueGivesEveryItemOnce) {
  for (uint32_t size : {1u, 2u, 97u, 1000u, 1024u}) {
    auto c = Catalogue::Build({3, size});
    std::vector<uint32_t> picks = Picked(*c, Request("everything", 1, 10000));
    ASSERT_EQ(picks.size(), size) << "capped at the catalogue's size";
    EXPECT_EQ(std::set<uint32_t>(picks.begin(), picks.end()).size(), size) << "size " << size;
  }
}

// The default catalogue (10,000 items per profile): what it costs at start-up. The
// figures are printed; the memory is asserted to stay a small part of a 1 GiB container.
TEST(CatalogueTest, TheDefaultCatalogueIsSmall) {
  auto c = Catalogue::Build(CatalogueOptions());
  EXPECT_EQ(c->size(), 10000u);
  std::printf("default catalogue: 2 x %u items, %.1f MiB (SpaceUsedLong), built in %.3f s\n", c->size(),
              c->space_used_bytes() / 1048576.0, c->build_seconds());
  EXPECT_LT(c->space_used_bytes(), uint64_t{64} << 20);
}

}  // namespace
}  // namespace reco
