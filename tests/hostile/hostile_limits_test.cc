// Requests at and over every limit, and bytes that are not a request, in every
// request-serving mode (the four memory modes and fragments). Each is answered with
// the documented status (or served, at the limit), and afterwards the server is whole
// (hostile_server.h): every lease back, correct replies.
#include <string>

#include <gtest/gtest.h>

#include "core/response_builder.h"
#include "core/test_util.h"
#include "tests/hostile/hostile_server.h"

namespace reco::hostile {
namespace {

class HostileLimitsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    server_ = StartServer(GetParam());
    ASSERT_NE(server_, nullptr);
    channel_ = ChannelTo(*server_);
  }
  Reply Call(const std::string& bytes) { return CallBytes(channel_.get(), bytes, absl::Seconds(60)); }

  std::unique_ptr<RecoServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_P(HostileLimitsTest, ItemCountAtTheLimitIsServedInFull) {
  // 10,000 realistic items: ~5 MB, the largest response the service promises.
  v1::RecommendRequest at = Request(kMaxItemCount, v1::TEXT_PROFILE_REALISTIC);
  Reply reply = Call(at.SerializeAsString());
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_GT(reply.bytes.size(), 4u << 20);
  EXPECT_TRUE(reply.bytes == ExpectedBytes(at)) << "10,000-item reply differs from BuildResponse";
  ExpectWhole(*server_, channel_.get(), "item_count 10000");
}

TEST_P(HostileLimitsTest, ItemCountOverTheLimitIsRefused) {
  for (uint32_t items : {kMaxItemCount + 1, 1u << 31, 0xffffffffu}) {
    Reply reply = Call(Request(items, v1::TEXT_PROFILE_COMPACT).SerializeAsString());
    EXPECT_EQ(reply.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << items;
    EXPECT_NE(reply.status.error_message().find("item_count"), std::string::npos) << reply.status.error_message();
    ExpectWhole(*server_, channel_.get(), "item_count " + std::to_string(items));
  }
}

TEST_P(HostileLimitsTest, UnknownTextProfileIsRefused) {
  for (int profile : {2, 7, -1, 0x7fffffff}) {
    v1::RecommendRequest r = Request(5, v1::TEXT_PROFILE_REALISTIC);
    r.set_text_profile(static_cast<v1::TextProfile>(profile));
    Reply reply = Call(r.SerializeAsString());
    EXPECT_EQ(reply.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << profile;
    EXPECT_NE(reply.status.error_message().find("text_profile"), std::string::npos) << reply.status.error_message();
    ExpectWhole(*server_, channel_.get(), "text_profile " + std::to_string(profile));
  }
}

TEST_P(HostileLimitsTest, HugeUserIdUnderTheCapIsServed) {
  // 60,000 bytes of user id: under the 64 KiB receive cap, so it is a valid request.
  v1::RecommendRequest r = Request(3, v1::TEXT_PROFILE_COMPACT);
  r.set_user_id(std::string(60000, 'u'));
  Reply reply = Call(r.SerializeAsString());
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_TRUE(reply.bytes == ExpectedBytes(r));
  ExpectWhole(*server_, channel_.get(), "a 60,000-byte user id");
}

TEST_P(HostileLimitsTest, RequestOverTheSizeCapIsRefusedBeforeTheHandler) {
  v1::RecommendRequest r = Request(3, v1::TEXT_PROFILE_COMPACT);
  r.set_user_id(std::string(1 << 20, 'u'));  // 1 MiB against a 64 KiB cap
  Reply reply = Call(r.SerializeAsString());
  EXPECT_EQ(reply.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << reply.status.error_message();
  ExpectWhole(*server_, channel_.get(), "a 1 MiB request");
}

TEST_P(HostileLimitsTest, BytesThatAreNotARequestAreRefused) {
  const std::string cases[] = {
      std::string("\x0a\x64"
                  "abc",
                  5),                                                   // user_id claims 100 bytes, has 3
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11),  // an 11-byte varint tag
      std::string("\x0a\x02\xc3\x28", 4),  // user_id that is not UTF-8 (proto3 strings must be)
      std::string("\x0b", 1),              // start of a group that never ends
      std::string("\x10", 1),              // a tag with no value
  };
  for (const std::string& bytes : cases) {
    Reply reply = Call(bytes);
    EXPECT_EQ(reply.status.error_code(), NotARequestCode(GetParam())) << reply.status.error_message();
    if (!HasGrpcParser(GetParam())) {
      EXPECT_NE(reply.status.error_message().find("RecommendRequest"), std::string::npos)
          << reply.status.error_message();
    }
    ExpectWhole(*server_, channel_.get(), "malformed bytes of length " + std::to_string(bytes.size()));
  }
}

TEST_P(HostileLimitsTest, UnknownFieldsAreIgnored) {
  // A newer client's field 99 (a string): proto3 keeps it as unknown, the reply is
  // the same as without it.
  v1::RecommendRequest r = Request(4, v1::TEXT_PROFILE_REALISTIC);
  std::string bytes = r.SerializeAsString() + std::string("\x9a\x06\x03xyz", 6);
  Reply reply = Call(bytes);
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_TRUE(reply.bytes == ExpectedBytes(r));
  ExpectWhole(*server_, channel_.get(), "an unknown field");
}

INSTANTIATE_TEST_SUITE_P(Modes, HostileLimitsTest, ::testing::ValuesIn(ModesAndApis()), ModeName);

}  // namespace
}  // namespace reco::hostile
