#include "client/request_set.h"

#include "core/response_builder.h"
#include "grpcpp/support/slice.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

grpc::ByteBuffer InSlices(const std::string& bytes, size_t slice_size) {
  std::vector<grpc::Slice> slices;
  for (size_t at = 0; at < bytes.size(); at += slice_size) {
    slices.emplace_back(bytes.data() + at, std::min(slice_size, bytes.size() - at));
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

v1::RecommendRequest Shape(uint32_t items) {
  v1::RecommendRequest r;
  r.set_item_count(items);
  r.set_seed(7);
  return r;
}

TEST(RequestSet, ExpectedBytesAreTheBuildersOutputForEachVariant) {
  RequestSet set(DefaultCatalogue(), Shape(5), 4);
  ASSERT_EQ(set.size(), 4);
  for (int i = 0; i < set.size(); ++i) {
    v1::RecommendResponse built;
    BuildResponse(DefaultCatalogue(), set.request_message(i), &built);
    EXPECT_EQ(set.expected_bytes(i), built.SerializeAsString());
    EXPECT_EQ(set.request_message(i).item_count(), 5u);
  }
  EXPECT_NE(set.expected_bytes(0), set.expected_bytes(1)) << "variants should differ";
  EXPECT_EQ(set.expected_items(), 5u);
}

TEST(RequestSet, CountsItemsAcrossSlicesWithoutParsing) {
  RequestSet set(DefaultCatalogue(), Shape(37), 4);
  for (size_t slice : {size_t{1} << 20, size_t{4096}, size_t{7}}) {
    grpc::ByteBuffer b = InSlices(set.expected_bytes(2), slice);
    EXPECT_EQ(RequestSet::CountItems(&b), 37) << "slice " << slice;
  }
  RequestSet defaults(DefaultCatalogue(), Shape(0), 4);
  grpc::ByteBuffer b = InSlices(defaults.expected_bytes(0), 8192);
  EXPECT_EQ(RequestSet::CountItems(&b), kDefaultItemCount);
}

TEST(RequestSet, MalformedBytesCountAsMinusOne) {
  RequestSet set(DefaultCatalogue(), Shape(3), 4);
  std::string truncated = set.expected_bytes(0).substr(0, set.expected_bytes(0).size() - 5);
  grpc::ByteBuffer b = InSlices(truncated, 1000);
  EXPECT_EQ(RequestSet::CountItems(&b), -1);
}

TEST(RequestSet, MatchesOnlyTheExactBytes) {
  RequestSet set(DefaultCatalogue(), Shape(10), 4);
  const std::string& want = set.expected_bytes(1);
  EXPECT_TRUE(set.MatchesExpected(1, InSlices(want, 333)));
  EXPECT_FALSE(set.MatchesExpected(0, InSlices(want, 333)));
  std::string flipped = want;
  flipped[flipped.size() / 2] ^= 1;
  EXPECT_FALSE(set.MatchesExpected(1, InSlices(flipped, 333)));
  EXPECT_FALSE(set.MatchesExpected(1, InSlices(want + "x", 333)));
}

TEST(RequestSet, CheckTellsWrongCountFromWrongContentAndComparesBytesOnlyWhenAsked) {
  RequestSet set(DefaultCatalogue(), Shape(10), 4);
  grpc::ByteBuffer right = InSlices(set.expected_bytes(1), 333);
  EXPECT_EQ(set.Check(1, &right, true), ReplyCheck::kRight);
  std::string flipped = set.expected_bytes(1);
  flipped[flipped.size() / 2] ^= 1;
  grpc::ByteBuffer same_length = InSlices(flipped, 333);
  // Same length: only the byte comparison can see it.
  EXPECT_EQ(set.Check(1, &same_length, false), ReplyCheck::kRight);
  EXPECT_EQ(set.Check(1, &same_length, true), ReplyCheck::kWrongContent);
  // Nine items where ten were asked: a different length, classified by counting.
  RequestSet nine(DefaultCatalogue(), Shape(9), 4);
  grpc::ByteBuffer short_reply = InSlices(nine.expected_bytes(1), 333);
  EXPECT_EQ(set.Check(1, &short_reply, false), ReplyCheck::kWrongItemCount);
  // Ten items but another variant's (different scores and ids, hence length here).
  grpc::ByteBuffer other = InSlices(set.expected_bytes(0), 333);
  if (set.expected_bytes(0).size() != set.expected_bytes(1).size()) {
    EXPECT_EQ(set.Check(1, &other, false), ReplyCheck::kWrongContent);
  }
  EXPECT_EQ(set.Check(1, &other, true), ReplyCheck::kWrongContent);
}

}  // namespace
}  // namespace reco
