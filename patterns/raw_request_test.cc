// SPDX-License-Identifier: Apache-2.0
// Proves raw_request.h: a raw handler refuses a call whose request never arrived or
// is not a whole request, and serves an empty (0-byte) request as all defaults -- on
// a real gRPC server, with the calls a hostile client makes.
#include "raw_request.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "feed.grpc.pb.h"
#include "gtest/gtest.h"
#include "testing/feed_builder.h"
#include "testing/local_server.h"
#include "testing/malloc_counter.h"
#include "testing/raw_call.h"

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;

TEST(ParseRawRequestTest, AnInvalidBufferIsNoRequest) {
  grpc::ByteBuffer never_arrived;  // what gRPC hands a raw handler when the stream ended early
  FeedRequest request;
  grpc::Status status = ParseRawRequest(never_arrived, &request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "no request message arrived: the stream ended before a whole message");
}

grpc::ByteBuffer BufferOf(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

TEST(ParseRawRequestTest, BytesThatAreNotAWholeRequestAreRefused) {
  FeedRequest whole;
  whole.set_user_id("someone");
  whole.set_post_count(20);
  const std::string bytes = whole.SerializeAsString();
  for (const std::string& bad : {std::string("\xff\xff\xff\xff", 4), bytes.substr(0, bytes.size() - 1)}) {
    FeedRequest request;
    grpc::Status status = ParseRawRequest(BufferOf(bad), &request);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(), "the request is not a feed.v1.FeedRequest");
  }
  FeedRequest request;
  ASSERT_TRUE(ParseRawRequest(BufferOf(bytes), &request).ok());
  EXPECT_EQ(request.user_id(), "someone");
  EXPECT_EQ(request.post_count(), 20u);
}

TEST(ParseRawRequestTest, ParsingAWarmRequestMallocsNothing) {
  FeedRequest sent;
  sent.set_user_id("short-user");  // 15 bytes or less: no heap payload
  sent.set_post_count(20);
  const grpc::ByteBuffer bytes = BufferOf(sent.SerializeAsString());
  FeedRequest request;
  ASSERT_TRUE(ParseRawRequest(bytes, &request).ok());  // warm-up
  const testing::MallocCounts before = testing::MallocCounter::ThisThread();
  ASSERT_TRUE(ParseRawRequest(bytes, &request).ok());
  const testing::MallocCounts used = testing::MallocCounter::ThisThread() - before;
  EXPECT_EQ(used.allocs, 0u);
  EXPECT_EQ(used.frees, 0u);
}

// A raw handler as a user writes one: parse or refuse, then build and serialize.
class RawFeed final : public feed::v1::Feed::WithRawCallbackMethod_GetFeed<feed::v1::Feed::CallbackService> {
 public:
  int served = 0;

  grpc::ServerUnaryReactor* GetFeed(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request_bytes,
                                    grpc::ByteBuffer* response_bytes) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    FeedRequest request;
    grpc::Status status = ParseRawRequest(*request_bytes, &request);
    if (status.ok()) {
      FeedResponse response;
      testing::FillFeed(request, &response);
      bool own_buffer = false;
      status = grpc::SerializationTraits<FeedResponse>::Serialize(response, response_bytes, &own_buffer);
      ++served;
    }
    reactor->Finish(status);
    return reactor;
  }
};

class RawRequestServerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(served_.started()); }

  // One GetFeed call sending `request_bytes` (nothing at all when nullopt).
  grpc::Status Call(const std::optional<std::string>& request_bytes, std::string* reply) {
    return testing::CallRawUnary(served_.channel().get(), "/feed.v1.Feed/GetFeed", request_bytes, reply);
  }

  RawFeed service_;
  testing::LocalServer served_{[this](grpc::ServerBuilder* builder) { builder->RegisterService(&service_); }};
};

TEST_F(RawRequestServerTest, ACallThatSendsNoRequestIsRefused) {
  std::string reply;
  grpc::Status status = Call(std::nullopt, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("no request message arrived"), std::string::npos) << status.error_message();
  EXPECT_EQ(reply, "") << "a reply to a request that never came";
  EXPECT_EQ(service_.served, 0);
}

TEST_F(RawRequestServerTest, GarbageIsRefusedAndTheServerGoesOnServing) {
  std::string reply;
  grpc::Status status = Call(std::string("\xff\xff\xff\xff", 4), &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "the request is not a feed.v1.FeedRequest");
  EXPECT_EQ(reply, "");

  FeedRequest good;
  good.set_post_count(3);
  ASSERT_TRUE(Call(good.SerializeAsString(), &reply).ok());
  FeedResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(reply));
  EXPECT_EQ(parsed.posts_size(), 3);
  EXPECT_EQ(service_.served, 1);
}

TEST_F(RawRequestServerTest, AnEmptyRequestIsAllDefaultsAndServed) {
  std::string reply;
  ASSERT_TRUE(Call(std::string(), &reply).ok());
  FeedResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(reply));
  EXPECT_EQ(parsed.posts_size(), 0);  // post_count 0: the default
  EXPECT_EQ(service_.served, 1);
}

}  // namespace
}  // namespace reco::patterns
