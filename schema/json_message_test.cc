// ParseJsonMessage: JSON that fits the type becomes the message; JSON that does not
// is refused with the field named, at any depth.
#include "schema/json_message.h"

#include <memory>
#include <string>

#include "core/test_util.h"
#include "feed.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schema/proto_schema.h"

namespace reco {
namespace {

using ::testing::HasSubstr;

// The shape of examples/inbox/inbox.proto, plus a map and a well-known type.
constexpr char kInboxProto[] = R"(syntax = "proto3";
package inbox.v1;
import "google/protobuf/timestamp.proto";
message ListThreadsRequest { string account = 1; uint32 threads = 2; bool long_text = 3; string page_token = 4; }
message ThreadPage { repeated MailThread threads = 1; string next_page_token = 2; map<string, MailThread> by_id = 3; }
message MailThread {
  string subject = 1;
  repeated Participant participants = 2;
  repeated string labels = 3;
  google.protobuf.Timestamp last_message = 4;
  bytes raw = 5;
}
message Participant {
  string address = 1;
  Role role = 2;
  enum Role { ROLE_UNSPECIFIED = 0; ROLE_FROM = 1; ROLE_TO = 2; }
}
)";

class ParseJsonMessageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = testing::FreshTestFolder();
    testing::WriteTestFile(dir + "/inbox.proto", kInboxProto);
    absl::StatusOr<ProtoSchema> schema = LoadProtoFiles({dir + "/inbox.proto"}, {});
    ASSERT_TRUE(schema.ok()) << schema.status();
    schema_ = std::make_unique<ProtoSchema>(*std::move(schema));
  }
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> Parse(const std::string& type, const std::string& json) {
    return ParseJsonMessage(schema_->Prototype(schema_->FindMessage(type)), json, "--data");
  }
  std::string Error(const std::string& type, const std::string& json) {
    absl::StatusOr<std::unique_ptr<google::protobuf::Message>> message = Parse(type, json);
    EXPECT_EQ(message.status().code(), absl::StatusCode::kInvalidArgument) << json;
    return std::string(message.status().message());
  }

  std::unique_ptr<ProtoSchema> schema_;
};

TEST_F(ParseJsonMessageTest, FittingJsonBecomesTheMessage) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> message =
      Parse("inbox.v1.ThreadPage",
            R"({"threads": [{"subject": "hi", "participants": [{"address": "a@b", "role": "ROLE_TO"}, {"role": 1}],
          "labels": ["x", "y"], "lastMessage": "2026-12-02T07:00:00Z", "raw": "AAE="}],
          "next_page_token": "t", "byId": {"k": {"subject": "s"}}})");
  ASSERT_TRUE(message.ok()) << message.status();
  EXPECT_EQ(
      (*message)->ShortDebugString(),
      "threads { subject: \"hi\" participants { address: \"a@b\" role: ROLE_TO } participants { role: ROLE_FROM } "
      "labels: \"x\" labels: \"y\" last_message { seconds: 1796194800 } raw: \"\\000\\001\" } "
      "next_page_token: \"t\" by_id { key: \"k\" value { subject: \"s\" } }");
}

TEST_F(ParseJsonMessageTest, NullMeansNotSet) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> message =
      Parse("inbox.v1.ThreadPage", R"({"threads": null, "nextPageToken": null})");
  ASSERT_TRUE(message.ok()) << message.status();
  EXPECT_EQ((*message)->ByteSizeLong(), 0u);
}

TEST_F(ParseJsonMessageTest, UnknownFieldIsNamedWithTheTypesFields) {
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", R"({"acount": "ada"})"),
            "--data: field \"acount\" is not a field of inbox.v1.ListThreadsRequest "
            "(fields: account, threads, long_text, page_token)");
}

TEST_F(ParseJsonMessageTest, UnknownFieldDeepDownIsNamedByItsPath) {
  EXPECT_EQ(Error("inbox.v1.ThreadPage", R"({"threads": [{}, {"participants": [{"adress": "a@b"}]}]})"),
            "--data: field \"threads[1].participants[0].adress\" is not a field of inbox.v1.Participant "
            "(fields: address, role)");
}

TEST_F(ParseJsonMessageTest, WrongTypeIsNamed) {
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", R"({"account": 5})"),
            "--data: field \"account\" wants a string, not 5 (inbox.v1.ListThreadsRequest.account)");
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", R"({"threads": [1]})"),
            "--data: field \"threads\" wants a number, not [1] (inbox.v1.ListThreadsRequest.threads)");
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", R"({"longText": "yes"})"),
            "--data: field \"longText\" wants true or false, not \"yes\" (inbox.v1.ListThreadsRequest.long_text)");
  EXPECT_EQ(Error("inbox.v1.ThreadPage", R"({"threads": {"subject": "s"}})"),
            "--data: field \"threads\" wants an array, not {\"subject\":\"s\"} (inbox.v1.ThreadPage.threads)");
  EXPECT_EQ(
      Error("inbox.v1.ThreadPage", R"({"threads": ["s"]})"),
      "--data: field \"threads[0]\" wants an object (inbox.v1.MailThread), not \"s\" (inbox.v1.ThreadPage.threads)");
  EXPECT_EQ(Error("inbox.v1.ThreadPage", R"({"byId": {"k": {"labels": "x"}}})"),
            "--data: field \"byId[\"k\"].labels\" wants an array, not \"x\" (inbox.v1.MailThread.labels)");
}

TEST_F(ParseJsonMessageTest, BadEnumNameListsTheValues) {
  EXPECT_EQ(Error("inbox.v1.ThreadPage", R"({"threads": [{"participants": [{"role": "ROLE_BOSS"}]}]})"),
            "--data: field \"threads[0].participants[0].role\": \"ROLE_BOSS\" is not a value of "
            "inbox.v1.Participant.Role (values: ROLE_UNSPECIFIED, ROLE_FROM, ROLE_TO)");
}

TEST_F(ParseJsonMessageTest, WhatProtobufAloneRefusesStillNamesTheField) {
  // Of the right JSON kind, but not a uint32: protobuf's parser judges it.
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", R"({"threads": -1})"),
            "--data: field \"threads\" of inbox.v1.ListThreadsRequest: invalid value -1 for type TYPE_UINT32");
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", R"({"threads": "many"})"),
            "--data: field \"threads\" of inbox.v1.ListThreadsRequest: invalid value \"many\" for type TYPE_UINT32");
  EXPECT_THAT(Error("inbox.v1.ThreadPage", R"({"threads": [{"lastMessage": "yesterday"}]})"),
              HasSubstr("--data: field \"threads[0].last_message\" of inbox.v1.ThreadPage: "));
}

TEST_F(ParseJsonMessageTest, NotJsonOrNotAnObject) {
  EXPECT_THAT(Error("inbox.v1.ListThreadsRequest", R"({"account": "ada" "threads": 1})"),
              HasSubstr("--data: not valid JSON: Expected , or } after key:value pair."));
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", R"(["ada"])"),
            "--data: want one JSON object ({...}) of inbox.v1.ListThreadsRequest, not [\"ada\"]");
  EXPECT_THAT(Error("inbox.v1.ListThreadsRequest", ""), HasSubstr("--data: not valid JSON"));
}

// Nesting past kMaxJsonDepth is refused before protobuf's parser sees it: arrays
// nested 5,000 deep took protobuf's parser half a second (quadratic; 50,000 took over
// a minute), objects it stops itself. Strings holding brackets do not count, and
// modest nesting is read as before.
TEST_F(ParseJsonMessageTest, NestingPastTheLimitIsRefusedFirst) {
  const int deep = 5000;
  const std::string arrays = R"({"account": )" + std::string(deep, '[') + std::string(deep, ']') + "}";
  EXPECT_EQ(Error("inbox.v1.ListThreadsRequest", arrays),
            "--data: JSON nested deeper than 100 levels (objects and arrays)");
  const std::string bracketed = R"({"account": ")" + std::string(deep, '[') + R"(\"{"})";
  EXPECT_TRUE(Parse("inbox.v1.ListThreadsRequest", bracketed).ok()) << "brackets in a string are text";
  const std::string nested = R"({"account": "a", "x": )" + std::string(20, '[') + std::string(20, ']') + "}";
  EXPECT_THAT(Error("inbox.v1.ListThreadsRequest", nested), HasSubstr("\"x\" is not a field"))
      << "20 levels are read (and the unknown field named)";
}

TEST(ParseJsonMessage, TakesAGeneratedPrototypeToo) {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> message = ParseJsonMessage(
      feed::v1::FeedRequest::default_instance(), R"({"user_id": "u1", "postCount": 3})", "--data_file x");
  ASSERT_TRUE(message.ok()) << message.status();
  const auto* request = dynamic_cast<const feed::v1::FeedRequest*>(message->get());
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->user_id(), "u1");
  EXPECT_EQ(request->post_count(), 3u);
  EXPECT_EQ(ParseJsonMessage(feed::v1::FeedRequest::default_instance(), R"({"posts": 3})", "--data_file x")
                .status()
                .message(),
            "--data_file x: field \"posts\" is not a field of feed.v1.FeedRequest "
            "(fields: user_id, post_count, long_text, page_size)");
}

}  // namespace
}  // namespace reco
