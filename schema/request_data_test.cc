// SerializedRequests: the request bytes from --data, --data_file (JSON, JSON Lines,
// binary) or nothing, and each bad input named by its flag (and line).
#include "schema/request_data.h"

#include <string>
#include <vector>

#include "core/test_util.h"
#include "feed.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace reco {
namespace {

using ::testing::HasSubstr;

const google::protobuf::Descriptor* const kType = feed::v1::FeedRequest::descriptor();

feed::v1::FeedRequest Parsed(const std::string& bytes) {
  feed::v1::FeedRequest request;
  EXPECT_TRUE(request.ParseFromString(bytes));
  return request;
}

RequestData File(const std::string& path, RequestData::Format format = RequestData::Format::kJson) {
  RequestData data;
  data.file = path;
  data.format = format;
  return data;
}

TEST(SerializedRequests, NoDataIsOneEmptyRequest) {
  absl::StatusOr<std::vector<std::string>> requests = SerializedRequests(kType, RequestData{});
  ASSERT_TRUE(requests.ok()) << requests.status();
  EXPECT_EQ(*requests, std::vector<std::string>{""});
}

TEST(SerializedRequests, InlineJsonParsesBackEqual) {
  RequestData data;
  data.json = R"({"userId": "u1", "post_count": 20, "longText": true})";
  absl::StatusOr<std::vector<std::string>> requests = SerializedRequests(kType, data);
  ASSERT_TRUE(requests.ok()) << requests.status();
  ASSERT_EQ(requests->size(), 1u);
  feed::v1::FeedRequest want;
  want.set_user_id("u1");
  want.set_post_count(20);
  want.set_long_text(true);
  EXPECT_EQ(Parsed(requests->front()).DebugString(), want.DebugString());
  EXPECT_EQ(requests->front(), want.SerializeAsString());
}

TEST(SerializedRequests, InlineJsonNamesTheUnknownField) {
  RequestData data;
  data.json = R"({"user": "u1"})";
  EXPECT_EQ(SerializedRequests(kType, data).status(),
            absl::InvalidArgumentError("--data: field \"user\" is not a field of feed.v1.FeedRequest "
                                       "(fields: user_id, post_count, long_text, page_size)"));
}

TEST(SerializedRequests, InlineJsonNamesTheWrongType) {
  RequestData data;
  data.json = R"({"user_id": 7})";
  EXPECT_EQ(SerializedRequests(kType, data).status().message(),
            "--data: field \"user_id\" wants a string, not 7 (feed.v1.FeedRequest.user_id)");
}

TEST(SerializedRequests, JsonFileMaySpanLines) {
  const std::string path = testing::FreshTestFolder() + "/request.json";
  testing::WriteTestFile(path, "{\n  \"user_id\": \"u1\",\n  \"post_count\": 5\n}\n");
  absl::StatusOr<std::vector<std::string>> requests = SerializedRequests(kType, File(path));
  ASSERT_TRUE(requests.ok()) << requests.status();
  ASSERT_EQ(requests->size(), 1u);
  EXPECT_EQ(Parsed(requests->front()).post_count(), 5u);
}

TEST(SerializedRequests, JsonLinesAreOneRequestEachBlankLinesSkipped) {
  const std::string path = testing::FreshTestFolder() + "/requests.jsonl";
  testing::WriteTestFile(path, "{\"post_count\": 1}\n\n{\"post_count\": 2}\n   \n{\"post_count\": 3}\n\n");
  absl::StatusOr<std::vector<std::string>> requests = SerializedRequests(kType, File(path));
  ASSERT_TRUE(requests.ok()) << requests.status();
  ASSERT_EQ(requests->size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(Parsed((*requests)[i]).post_count(), i + 1);
}

TEST(SerializedRequests, JsonLinesNameTheBadLine) {
  const std::string path = testing::FreshTestFolder() + "/requests.jsonl";
  testing::WriteTestFile(path, "{\"post_count\": 1}\n\n{\"post_count\": 2}\n{\"postcount\": 3}\n");
  EXPECT_EQ(SerializedRequests(kType, File(path)).status().message(),
            "--data_file " + path +
                " line 4: field \"postcount\" is not a field of feed.v1.FeedRequest "
                "(fields: user_id, post_count, long_text, page_size)");
  testing::WriteTestFile(path, "{\"post_count\": 1}\n{\"post_count\": 2,,}\n");
  EXPECT_THAT(std::string(SerializedRequests(kType, File(path)).status().message()),
              HasSubstr("--data_file " + path + " line 2: not valid JSON"));
}

TEST(SerializedRequests, EmptyJsonFileIsRefused) {
  const std::string path = testing::FreshTestFolder() + "/empty.json";
  testing::WriteTestFile(path, "\n  \n");
  EXPECT_EQ(SerializedRequests(kType, File(path)).status(),
            absl::InvalidArgumentError("--data_file " + path + ": holds no JSON request"));
}

TEST(SerializedRequests, BinaryFileIsSentAsItIs) {
  feed::v1::FeedRequest request;
  request.set_user_id("u9");
  request.set_page_size(7);
  const std::string path = testing::FreshTestFolder() + "/request.bin";
  testing::WriteTestFile(path, request.SerializeAsString());
  absl::StatusOr<std::vector<std::string>> requests =
      SerializedRequests(kType, File(path, RequestData::Format::kBinary));
  ASSERT_TRUE(requests.ok()) << requests.status();
  EXPECT_EQ(*requests, std::vector<std::string>{request.SerializeAsString()});
}

TEST(SerializedRequests, BinaryFileOfAnotherTypeOrNoneIsRefused) {
  const std::string dir = testing::FreshTestFolder();
  feed::v1::FeedResponse other;
  other.set_request_id("r");
  other.add_posts();  // field 2 as a message: a wire type FeedRequest's field 2 (uint32) cannot take
  testing::WriteTestFile(dir + "/other.bin", other.SerializeAsString());
  EXPECT_EQ(SerializedRequests(kType, File(dir + "/other.bin", RequestData::Format::kBinary)).status().message(),
            "--data_file " + dir +
                "/other.bin (--data_format binary): field number 2 is not a field of "
                "feed.v1.FeedRequest (serialized from another type?)");
  testing::WriteTestFile(dir + "/garbage.bin", std::string("\xff\xff\xff", 3));
  EXPECT_EQ(SerializedRequests(kType, File(dir + "/garbage.bin", RequestData::Format::kBinary)).status().message(),
            "--data_file " + dir + "/garbage.bin (--data_format binary): not a serialized feed.v1.FeedRequest");
  EXPECT_EQ(SerializedRequests(kType, File(dir + "/none.bin", RequestData::Format::kBinary)).status().message(),
            "--data_file " + dir + "/none.bin: cannot read it (No such file or directory)");
}

TEST(SerializedRequests, FlagsThatContradictAreRefused) {
  RequestData both = File("x.json");
  both.json = "{}";
  EXPECT_EQ(SerializedRequests(kType, both).status().code(), absl::StatusCode::kInvalidArgument);
  RequestData binary_inline;
  binary_inline.json = "{}";
  binary_inline.format = RequestData::Format::kBinary;
  EXPECT_THAT(std::string(SerializedRequests(kType, binary_inline).status().message()),
              HasSubstr("--data_format binary"));
}

// A client stream's request: the messages of one call, delimited.
std::vector<uint32_t> StreamCounts(const std::string& stream) {
  absl::StatusOr<std::vector<std::string>> messages = SplitDelimited(stream);
  EXPECT_TRUE(messages.ok()) << messages.status();
  std::vector<uint32_t> counts;
  for (const std::string& m : messages.value_or(std::vector<std::string>{})) counts.push_back(Parsed(m).post_count());
  return counts;
}

TEST(SerializedRequests, AStreamIsAnArrayOfMessagesOrOneObject) {
  RequestData data;
  data.json = R"([{"post_count": 1}, {"post_count": 2, "user_id": "a,b]}"}, {"post_count": 3}])";
  absl::StatusOr<std::vector<std::string>> requests = SerializedRequests(kType, data, /*stream=*/true);
  ASSERT_TRUE(requests.ok()) << requests.status();
  ASSERT_EQ(requests->size(), 1u);
  EXPECT_EQ(StreamCounts(requests->front()), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(Parsed(SplitDelimited(requests->front())->at(1)).user_id(), "a,b]}");
  data.json = R"({"post_count": 7})";
  requests = SerializedRequests(kType, data, true);
  ASSERT_TRUE(requests.ok()) << requests.status();
  EXPECT_EQ(StreamCounts(requests->front()), std::vector<uint32_t>{7});
  data.json = "[]";
  requests = SerializedRequests(kType, data, true);
  ASSERT_TRUE(requests.ok()) << requests.status();
  EXPECT_EQ(*requests, std::vector<std::string>{""});  // a stream of no message
  // Not a stream: an array is refused, as before.
  data.json = R"([{"post_count": 1}])";
  EXPECT_THAT(std::string(SerializedRequests(kType, data).status().message()), HasSubstr("want one JSON object"));
}

TEST(SerializedRequests, AStreamsBadMessageIsNamedByItsIndex) {
  RequestData data;
  data.json = R"([{"post_count": 1}, {"postcount": 2}])";
  EXPECT_EQ(SerializedRequests(kType, data, true).status().message(),
            "--data message 1: field \"postcount\" is not a field of feed.v1.FeedRequest "
            "(fields: user_id, post_count, long_text, page_size)");
  data.json = R"([{"post_count": 1},, ])";
  EXPECT_THAT(std::string(SerializedRequests(kType, data, true).status().message()),
              HasSubstr("--data: not a valid JSON array"));
}

TEST(SerializedRequests, StreamsFromJsonLinesAndBinary) {
  const std::string dir = testing::FreshTestFolder();
  testing::WriteTestFile(dir + "/calls.jsonl", "[{\"post_count\": 1}, {\"post_count\": 2}]\n{\"post_count\": 3}\n");
  absl::StatusOr<std::vector<std::string>> requests = SerializedRequests(kType, File(dir + "/calls.jsonl"), true);
  ASSERT_TRUE(requests.ok()) << requests.status();
  ASSERT_EQ(requests->size(), 2u);
  EXPECT_EQ(StreamCounts((*requests)[0]), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(StreamCounts((*requests)[1]), std::vector<uint32_t>{3});
  feed::v1::FeedRequest one;
  one.set_post_count(9);
  testing::WriteTestFile(dir + "/one.bin", one.SerializeAsString());
  requests = SerializedRequests(kType, File(dir + "/one.bin", RequestData::Format::kBinary), true);
  ASSERT_TRUE(requests.ok()) << requests.status();
  EXPECT_EQ(StreamCounts(requests->front()), std::vector<uint32_t>{9});
}

TEST(SplitDelimited, RefusesALengthPastTheEnd) {
  EXPECT_EQ(SplitDelimited(std::string("\x05"
                                       "abc",
                                       4))
                .status()
                .message(),
            "not a delimited stream of messages: message 0 ends past the 4 bytes");
  absl::StatusOr<std::vector<std::string>> two =
      SplitDelimited(std::string("\x01"
                                 "a"
                                 "\x00",
                                 3));
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(*two, (std::vector<std::string>{"a", ""}));
}

TEST(ParseDataFormat, JsonOrBinary) {
  EXPECT_EQ(*ParseDataFormat("json"), RequestData::Format::kJson);
  EXPECT_EQ(*ParseDataFormat("binary"), RequestData::Format::kBinary);
  EXPECT_EQ(ParseDataFormat("text").status(), absl::InvalidArgumentError("--data_format text: want json or binary"));
}

}  // namespace
}  // namespace reco
