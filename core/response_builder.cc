// The deterministic response generator. See response_builder.h.
#include "core/response_builder.h"

#include "core/reply_parts.h"
#include "patterns/arena_alias.h"

namespace reco {

using v1::Item;
using v1::RecommendRequest;
using v1::RecommendResponse;

namespace {

// A catalogue sub-message into the reply item: aliased when asked and the item is on
// an arena (patterns/arena_alias.h refuses otherwise), else copied. Unset stays unset,
// as CopyFrom leaves it.
template <typename SubMessage>
void AliasOrCopy(bool has, const SubMessage& stored, void (Item::*alias_setter)(SubMessage*),
                 SubMessage* (Item::*mutable_field)(), Item* item) {
  if (!has) return;
  if (patterns::AliasSubMessage(item, alias_setter, stored)) return;
  (item->*mutable_field)()->CopyFrom(stored);
}

// ItemData::kAliased: the fields CopyFrom would copy, one by one, the five
// sub-messages aliased. An Item field added to reco.proto must be added here too
// (ResponseBuilderTest.AliasedItemsTakeEveryCatalogueField fails until it is).
void TakeItemAliased(const Item& stored, Item* item) {
  item->set_item_id(stored.item_id());
  item->set_title(stored.title());
  item->set_description(stored.description());
  item->set_url(stored.url());
  item->mutable_tags()->CopyFrom(stored.tags());
  item->mutable_category_ids()->CopyFrom(stored.category_ids());
  AliasOrCopy(stored.has_price(), stored.price(), &Item::unsafe_arena_set_allocated_price, &Item::mutable_price, item);
  AliasOrCopy(stored.has_image(), stored.image(), &Item::unsafe_arena_set_allocated_image, &Item::mutable_image, item);
  AliasOrCopy(stored.has_rating(), stored.rating(), &Item::unsafe_arena_set_allocated_rating, &Item::mutable_rating,
              item);
  AliasOrCopy(stored.has_seller(), stored.seller(), &Item::unsafe_arena_set_allocated_seller, &Item::mutable_seller,
              item);
  AliasOrCopy(stored.has_shipping(), stored.shipping(), &Item::unsafe_arena_set_allocated_shipping,
              &Item::mutable_shipping, item);
}

// The one builder: `stop_requested` is asked before the first item and then every
// `check_every` items; when it says yes, the build ends there (returns false).
template <ItemData kItemData, typename StopRequested>
bool Build(const Catalogue& catalogue, const RecommendRequest& request, RecommendResponse* response,
           StopRequested stop_requested, uint32_t check_every) {
  const v1::TextProfile profile = request.text_profile();
  const ItemPicks picks = catalogue.Picks(request);
  const uint64_t key = ReplyKey(request);

  char id[kRequestIdBufferBytes];
  response->mutable_request_id()->assign(id, WriteRequestId(key, profile, id));

  auto* items = response->mutable_items();
  items->Reserve(static_cast<int>(picks.count()));
  for (uint32_t i = 0; i < picks.count(); ++i) {
    if (i % check_every == 0 && stop_requested()) return false;
    const uint32_t index = picks.at(i);
    Item* item = items->Add();
    if constexpr (kItemData == ItemData::kAliased) {
      TakeItemAliased(catalogue.item(profile, index), item);
    } else {
      item->CopyFrom(catalogue.item(profile, index));  // the static data, copied
    }
    FillScores(key, index, profile, item->mutable_scores());
  }
  FillMetadata(request, picks.count(), response->mutable_metadata());
  return true;
}

}  // namespace

void BuildResponse(const Catalogue& catalogue, const RecommendRequest& request, RecommendResponse* response,
                   ItemData item_data) {
  // A constant "no" that the compiler folds away: the plain build pays nothing.
  const auto never = [] { return false; };
  if (item_data == ItemData::kAliased) {
    Build<ItemData::kAliased>(catalogue, request, response, never, /*check_every=*/1);
  } else {
    Build<ItemData::kCopied>(catalogue, request, response, never, /*check_every=*/1);
  }
}

bool BuildResponseUnlessStopped(const Catalogue& catalogue, const RecommendRequest& request,
                                RecommendResponse* response, absl::FunctionRef<bool()> stop_requested,
                                uint32_t check_every, ItemData item_data) {
  if (check_every == 0) check_every = 1;
  return item_data == ItemData::kAliased
             ? Build<ItemData::kAliased>(catalogue, request, response, stop_requested, check_every)
             : Build<ItemData::kCopied>(catalogue, request, response, stop_requested, check_every);
}

std::string BuildResponseBytes(const Catalogue& catalogue, const RecommendRequest& request) {
  RecommendResponse response;
  BuildResponse(catalogue, request, &response);
  return response.SerializeAsString();
}

}  // namespace reco
