// The request's rules: the default item count, the limits and their messages, the
// profile names.
#include "core/request.h"

#include "gtest/gtest.h"

namespace reco {
namespace {

v1::RecommendRequest Asking(uint32_t items) {
  v1::RecommendRequest r;
  r.set_item_count(items);
  return r;
}

TEST(EffectiveItemCountTest, ZeroMeansTheDefault) {
  EXPECT_EQ(EffectiveItemCount(Asking(0)), kDefaultItemCount);
  EXPECT_EQ(EffectiveItemCount(Asking(1)), 1u);
  EXPECT_EQ(EffectiveItemCount(Asking(kMaxItemCount)), kMaxItemCount);
}

TEST(ValidateRequestTest, AcceptsTheLimitAndRejectsPastIt) {
  EXPECT_TRUE(ValidateRequest(Asking(kMaxItemCount)).ok());
  absl::Status too_many = ValidateRequest(Asking(kMaxItemCount + 1));
  EXPECT_EQ(too_many.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(too_many.message().find("10000"), absl::string_view::npos) << too_many.message();
}

TEST(ValidateRequestTest, RejectsAnUnknownTextProfile) {
  v1::RecommendRequest r = Asking(1);
  r.set_text_profile(static_cast<v1::TextProfile>(7));
  absl::Status s = ValidateRequest(r);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("text_profile"), absl::string_view::npos) << s.message();
}

TEST(TextProfileNameTest, RoundTrips) {
  v1::TextProfile p;
  ASSERT_TRUE(ParseTextProfile("compact", &p));
  EXPECT_EQ(p, v1::TEXT_PROFILE_COMPACT);
  EXPECT_EQ(TextProfileName(p), "compact");
  EXPECT_FALSE(ParseTextProfile("Compact", &p));
}

}  // namespace
}  // namespace reco
