// ParseCallFlag and FindMethod: --call's forms, and each way it can miss.
#include "schema/method_schema.h"

#include <string>
#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schema/proto_schema.h"

namespace reco {
namespace {

using ::testing::Pair;

TEST(ParseCallFlag, TakesTheSlashTheWirePathAndTheDottedForm) {
  EXPECT_THAT(*ParseCallFlag("feed.v1.Feed/GetFeed"), Pair("feed.v1.Feed", "GetFeed"));
  EXPECT_THAT(*ParseCallFlag("/feed.v1.Feed/GetFeed"), Pair("feed.v1.Feed", "GetFeed"));
  EXPECT_THAT(*ParseCallFlag("feed.v1.Feed.GetFeed"), Pair("feed.v1.Feed", "GetFeed"));
  EXPECT_THAT(*ParseCallFlag("Feed/GetFeed"), Pair("Feed", "GetFeed"));  // no package
}

TEST(ParseCallFlag, RejectsWhatNamesNoMethod) {
  for (const char* call :
       {"", "/", "GetFeed", "feed.v1.Feed/", "/GetFeed", "feed.v1.Feed.", "a/b/c", "feed.v1.Feed/Get Feed"}) {
    absl::StatusOr<std::pair<std::string, std::string>> parsed = ParseCallFlag(call);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << call;
    EXPECT_THAT(std::string(parsed.status().message()), ::testing::StartsWith("--call ")) << call;
    EXPECT_THAT(std::string(parsed.status().message()), ::testing::HasSubstr("want package.Service/Method")) << call;
  }
}

class FindMethodTest : public ::testing::Test {
 protected:
  FindMethodTest() : schema_(*LoadProtoFiles({RECO_SOURCE_DIR "/patterns/testing/feed.proto"}, {})) {}
  ProtoSchema schema_;
};

TEST_F(FindMethodTest, FindsTheMethodItsPathAndTypes) {
  absl::StatusOr<MethodSchema> method = FindMethod(schema_, "feed.v1.Feed/GetFeed");
  ASSERT_TRUE(method.ok()) << method.status();
  EXPECT_EQ(method->service, "feed.v1.Feed");
  EXPECT_EQ(method->method, "GetFeed");
  EXPECT_EQ(method->path, "/feed.v1.Feed/GetFeed");
  EXPECT_EQ(method->request, schema_.FindMessage("feed.v1.FeedRequest"));
  EXPECT_EQ(method->reply, schema_.FindMessage("feed.v1.FeedResponse"));
  EXPECT_FALSE(method->client_streaming);
  EXPECT_FALSE(method->server_streaming);
}

TEST_F(FindMethodTest, UnknownServiceListsTheServices) {
  EXPECT_EQ(FindMethod(schema_, "feed.v1.Fed/GetFeed").status(),
            absl::InvalidArgumentError(
                "--call feed.v1.Fed/GetFeed: no service feed.v1.Fed in the schema (services: feed.v1.Feed)"));
}

TEST_F(FindMethodTest, UnknownMethodListsTheMethods) {
  EXPECT_EQ(FindMethod(schema_, "feed.v1.Feed/GetFed").status(),
            absl::InvalidArgumentError(
                "--call feed.v1.Feed/GetFed: feed.v1.Feed has no method GetFed (methods: GetFeed, StreamFeed)"));
}

TEST_F(FindMethodTest, AServerStreamingMethodIsFoundAndSaysSo) {
  absl::StatusOr<MethodSchema> method = FindMethod(schema_, "feed.v1.Feed/StreamFeed");
  ASSERT_TRUE(method.ok()) << method.status();
  EXPECT_TRUE(method->server_streaming);
  EXPECT_FALSE(method->client_streaming);
  EXPECT_EQ(method->path, "/feed.v1.Feed/StreamFeed");
}

TEST(FindMethod, FindsEachStreamingKindAndNamesIt) {
  google::protobuf::FileDescriptorProto file;
  file.set_name("s.proto");
  file.set_package("s");
  file.add_message_type()->set_name("M");
  auto* service = file.add_service();
  service->set_name("S");
  for (const auto& [name, client, server] : {std::tuple{"Up", true, false}, std::tuple{"Both", true, true}}) {
    auto* method = service->add_method();
    method->set_name(name);
    method->set_input_type(".s.M");
    method->set_output_type(".s.M");
    method->set_client_streaming(client);
    method->set_server_streaming(server);
  }
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos({file});
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<MethodSchema> up = FindMethod(*schema, "s.S/Up");
  ASSERT_TRUE(up.ok()) << up.status();
  EXPECT_TRUE(up->client_streaming);
  EXPECT_FALSE(up->server_streaming);
  absl::StatusOr<MethodSchema> both = FindMethod(*schema, "s.S/Both");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_TRUE(both->client_streaming && both->server_streaming);
  EXPECT_EQ(MethodKind(false, false), "unary");
  EXPECT_EQ(MethodKind(false, true), "server-streaming");
  EXPECT_EQ(MethodKind(true, false), "client-streaming");
  EXPECT_EQ(MethodKind(true, true), "bidirectional-streaming");
}

TEST(FindMethod, ASchemaWithoutServicesSaysSo) {
  google::protobuf::FileDescriptorProto file;
  file.set_name("m.proto");
  file.add_message_type()->set_name("M");
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos({file});
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(FindMethod(*schema, "s.S/Get").status().message(),
            "--call s.S/Get: no service s.S in the schema (it has no services)");
}

}  // namespace
}  // namespace reco
