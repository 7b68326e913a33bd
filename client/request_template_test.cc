#include "client/request_template.h"

#include "absl/random/random.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

const absl::Time kNow = absl::FromUnixNanos(1765000000123456789);

TEST(RequestTemplate, FillsEachPlaceholderPerCall) {
  absl::BitGen rng;
  absl::StatusOr<RequestTemplate> t =
      RequestTemplate::Parse(R"({"id": "{{.RequestNumber}}", "at": "{{ .Timestamp }}", "s": {{.TimestampUnix}}, )"
                             R"("ms": {{.TimestampUnixMilli}}, "ns": {{.TimestampUnixNano}}})",
                             "--data");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->has_placeholders());
  EXPECT_EQ(t->Render(7, kNow, rng),
            R"({"id": "7", "at": "2025-12-06T05:46:40.123456789Z", "s": 1765000000, "ms": 1765000000123, )"
            R"("ns": 1765000000123456789})");
  EXPECT_EQ(t->Render(8, kNow, rng).substr(0, 12), R"({"id": "8", )");
}

TEST(RequestTemplate, UuidsAreVersion4AndDifferPerCall) {
  absl::BitGen rng;
  absl::StatusOr<RequestTemplate> t = RequestTemplate::Parse("{{.UUID}}", "--metadata x-id");
  ASSERT_TRUE(t.ok()) << t.status();
  const std::string a = t->Render(0, kNow, rng), b = t->Render(0, kNow, rng);
  ASSERT_EQ(a.size(), 36u) << a;
  EXPECT_EQ(a[8], '-');
  EXPECT_EQ(a[14], '4') << a;                                          // the version
  EXPECT_NE(std::string("89ab").find(a[19]), std::string::npos) << a;  // the variant
  EXPECT_NE(a, b);
  EXPECT_EQ(RequestTemplate::Parse("{{newUUID}}", "--data")->Render(0, kNow, rng).size(), 36u);
}

TEST(RequestTemplate, PlainTextIsSentAsItIs) {
  absl::BitGen rng;
  absl::StatusOr<RequestTemplate> t = RequestTemplate::Parse(R"({"a": "{b}", "c": "}}"})", "--data");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->has_placeholders());
  EXPECT_EQ(t->Render(3, kNow, rng), R"({"a": "{b}", "c": "}}"})");
  EXPECT_EQ(RequestTemplate::Parse("", "--data")->Render(0, kNow, rng), "");
}

TEST(RequestTemplate, UnknownOrUnclosedPlaceholdersNameTheFlag) {
  absl::StatusOr<RequestTemplate> t = RequestTemplate::Parse(R"({"id": "{{.RequestNum}}"})", "--data");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "--data: unknown placeholder \"{{.RequestNum}}\" (known: {{.RequestNumber}}, {{.Timestamp}}, "
            "{{.TimestampUnix}}, {{.TimestampUnixMilli}}, {{.TimestampUnixNano}}, {{.UUID}}, {{newUUID}})");
  t = RequestTemplate::Parse("req-{{.UUID", "--metadata x-id");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "--metadata x-id: \"{{\" without its \"}}\" at \"{{.UUID\"");
}

}  // namespace
}  // namespace reco
