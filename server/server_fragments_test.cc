// The fragments mode over real RPCs: its replies, parsed, equal every message mode's
// (and are byte for byte BuildResponse's); bad input gets a clear status and the
// server keeps serving; the reply budget refuses alike; stats name the mode.
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "core/byte_buffer_bytes.h"
#include "core/response_builder.h"
#include "gtest/gtest.h"
#include "patterns/testing/raw_call.h"
#include "server/testing/server_test_util.h"

namespace reco::testing {
namespace {

std::unique_ptr<RecoServer> StartFragmentsServer(ServerOptions options = {}) {
  options.listen = "127.0.0.1:0";
  options.mode = ServingMode::kFragments;
  auto server = RecoServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

TEST(ServerFragmentsTest, RepliesEqualEveryMessageModesAsMessagesAndAsBytes) {
  std::unique_ptr<RecoServer> fragments = StartFragmentsServer();
  ASSERT_NE(fragments, nullptr);
  std::vector<std::unique_ptr<RecoServer>> modes;
  for (MemoryMode mode : AllMemoryModes()) modes.push_back(StartTestServer(mode));
  auto fragments_channel = ChannelTo(*fragments);

  for (const v1::RecommendRequest& request :
       {MakeRequest(200, v1::TEXT_PROFILE_REALISTIC), MakeRequest(3, v1::TEXT_PROFILE_COMPACT, 9),
        MakeRequest(0, v1::TEXT_PROFILE_COMPACT, 5), MakeRequest(2000, v1::TEXT_PROFILE_REALISTIC, 11)}) {
    RawReply spliced = CallRaw(fragments_channel.get(), request);
    ASSERT_TRUE(spliced.status.ok()) << spliced.status.error_message();
    EXPECT_TRUE(spliced.bytes == ExpectedBytes(request)) << "item_count " << request.item_count();
    v1::RecommendResponse from_fragments;
    ASSERT_TRUE(from_fragments.ParseFromString(spliced.bytes));
    for (size_t m = 0; m < modes.size(); ++m) {
      ASSERT_NE(modes[m], nullptr);
      RawReply built = CallRaw(ChannelTo(*modes[m]).get(), request);
      ASSERT_TRUE(built.status.ok());
      v1::RecommendResponse from_mode;
      ASSERT_TRUE(from_mode.ParseFromString(built.bytes));
      std::string diff;
      google::protobuf::util::MessageDifferencer differencer;
      differencer.ReportDifferencesToString(&diff);
      EXPECT_TRUE(differencer.Compare(from_mode, from_fragments))
          << MemoryModeName(AllMemoryModes()[m]) << ": " << diff;
    }
  }
}

// Every item referenced (--fragments_copy_below_bytes=0: the spliced path) or every
// item copied (the default: the reply written once into one slice): the same bytes.
TEST(ServerFragmentsTest, ZeroCopyAndWrittenOnceRepliesAreTheSameBytes) {
  ServerOptions zero_copy_options;
  zero_copy_options.fragments_copy_below_bytes = 0;
  std::unique_ptr<RecoServer> zero_copy = StartFragmentsServer(zero_copy_options);
  std::unique_ptr<RecoServer> written_once = StartFragmentsServer();
  ASSERT_NE(zero_copy, nullptr);
  ASSERT_NE(written_once, nullptr);
  for (const v1::RecommendRequest& request :
       {MakeRequest(200, v1::TEXT_PROFILE_REALISTIC), MakeRequest(1, v1::TEXT_PROFILE_COMPACT, 9)}) {
    RawReply referenced = CallRaw(ChannelTo(*zero_copy).get(), request);
    RawReply copied = CallRaw(ChannelTo(*written_once).get(), request);
    ASSERT_TRUE(referenced.status.ok()) << referenced.status.error_message();
    ASSERT_TRUE(copied.status.ok()) << copied.status.error_message();
    EXPECT_TRUE(referenced.bytes == ExpectedBytes(request)) << "item_count " << request.item_count();
    EXPECT_TRUE(copied.bytes == referenced.bytes) << "item_count " << request.item_count();
  }
}

// --api async serves fragments with the same handler: the same bytes as the callback
// server; bytes that are not a request get INVALID_ARGUMENT; the budget's counts are
// exact and it comes back.
TEST(ServerFragmentsTest, AsyncRepliesEqualTheCallbackServersBytes) {
  ServerOptions async_options;
  async_options.api = ServingApi::kAsync;
  async_options.async_threads = kTestAsyncThreads;
  std::unique_ptr<RecoServer> async = StartFragmentsServer(async_options);
  std::unique_ptr<RecoServer> callback = StartFragmentsServer();
  ASSERT_NE(async, nullptr);
  ASSERT_NE(callback, nullptr);
  auto async_channel = ChannelTo(*async);
  auto callback_channel = ChannelTo(*callback);
  const std::vector<v1::RecommendRequest> requests = {
      MakeRequest(200, v1::TEXT_PROFILE_REALISTIC), MakeRequest(3, v1::TEXT_PROFILE_COMPACT, 9),
      MakeRequest(0, v1::TEXT_PROFILE_COMPACT, 5), MakeRequest(2000, v1::TEXT_PROFILE_REALISTIC, 11)};
  for (const v1::RecommendRequest& request : requests) {
    RawReply got = CallRaw(async_channel.get(), request);
    RawReply want = CallRaw(callback_channel.get(), request);
    ASSERT_TRUE(got.status.ok()) << got.status.error_message();
    ASSERT_TRUE(want.status.ok()) << want.status.error_message();
    EXPECT_TRUE(got.bytes == want.bytes) << "item_count " << request.item_count();
  }
  RawReply garbage = CallRawBytes(async_channel.get(), std::string("\xff\xff\xff", 3), absl::Seconds(20));
  EXPECT_EQ(garbage.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << garbage.status.error_message();
  v1::StatsSnapshot s = async->Stats(false);
  for (const absl::Time give_up = absl::Now() + absl::Seconds(10);
       s.budget().in_use_bytes() != 0 && absl::Now() < give_up; s = async->Stats(false)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(s.rpcs(), requests.size());
  EXPECT_EQ(s.rpc_invalid(), 1u);
  EXPECT_EQ(s.budget().admitted(), requests.size());
  EXPECT_EQ(s.budget().in_use_bytes(), 0u);
}

TEST(ServerFragmentsTest, BadInputGetsAClearStatusAndTheServerKeepsServing) {
  std::unique_ptr<RecoServer> server = StartFragmentsServer();
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(*server);

  RawReply garbage = CallRawBytes(channel.get(), std::string("\xff\xff\xff\xff", 4), absl::Seconds(30));
  EXPECT_EQ(garbage.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(garbage.status.error_message().find("not a reco.v1.RecommendRequest"), std::string::npos)
      << garbage.status.error_message();

  RawReply too_many = CallRaw(channel.get(), MakeRequest(kMaxItemCount + 1, v1::TEXT_PROFILE_COMPACT));
  EXPECT_EQ(too_many.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(too_many.status.error_message().find("item_count"), std::string::npos);

  const v1::RecommendRequest good = MakeRequest(50, v1::TEXT_PROFILE_REALISTIC);
  RawReply after = CallRaw(channel.get(), good);
  ASSERT_TRUE(after.status.ok());
  EXPECT_TRUE(after.bytes == ExpectedBytes(good));

  v1::StatsSnapshot stats = server->Stats(/*reset=*/false);
  EXPECT_EQ(stats.mode(), "fragments");
  EXPECT_EQ(stats.rpcs(), 1u);
  EXPECT_EQ(stats.rpc_invalid(), 2u);
  EXPECT_EQ(stats.build().latency().count(), 1u) << "the handler's work is the build phase";
  EXPECT_EQ(stats.serialize().latency().count(), 0u) << "nothing to serialize";
  EXPECT_EQ(stats.catalogue().items_per_profile(), CatalogueOptions().items_per_profile);
}

// A Recommend call whose client half-closes without sending a message: what a
// stream that ends mid-frame also looks like to the handler. The reply message, if
// any, goes to *reply_bytes.
grpc::Status CallWithNoRequest(grpc::Channel* channel, std::string* reply_bytes) {
  return patterns::testing::CallRawUnary(channel, "/reco.v1.Recommender/Recommend", std::nullopt, reply_bytes);
}

// Found by hostile_raw_http2_test's truncated frame: a raw handler is run even when
// no request arrived, and the fragments server answered it as the all-defaults
// request (200 items). Now it refuses, as the message modes do (gRPC's parser says
// UNIMPLEMENTED there: docs/reliability.md, section 3), while a 0-byte request stays
// valid.
TEST(ServerFragmentsTest, ACallThatSendsNoRequestIsRefusedAndAnEmptyRequestIsServed) {
  std::unique_ptr<RecoServer> fragments = StartFragmentsServer();
  std::unique_ptr<RecoServer> heap = StartTestServer(MemoryMode::kHeap);
  ASSERT_NE(fragments, nullptr);
  ASSERT_NE(heap, nullptr);
  auto fragments_channel = ChannelTo(*fragments);
  auto heap_channel = ChannelTo(*heap);

  std::string reply;
  grpc::Status refused = CallWithNoRequest(fragments_channel.get(), &reply);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << refused.error_message();
  EXPECT_NE(refused.error_message().find("no request message"), std::string::npos) << refused.error_message();
  EXPECT_EQ(reply.size(), 0u) << "a reply to a request that never came";
  EXPECT_EQ(fragments->Stats(/*reset=*/false).rpc_invalid(), 1u);
  reply.clear();
  EXPECT_FALSE(CallWithNoRequest(heap_channel.get(), &reply).ok()) << "the message modes refuse it too";
  EXPECT_EQ(reply.size(), 0u);

  // Zero bytes are a whole RecommendRequest with every field at its default.
  const std::string defaults = ExpectedBytes(v1::RecommendRequest());
  for (grpc::Channel* channel : {fragments_channel.get(), heap_channel.get()}) {
    RawReply empty = CallRawBytes(channel, std::string(), absl::Seconds(30));
    ASSERT_TRUE(empty.status.ok()) << empty.status.error_message();
    EXPECT_TRUE(empty.bytes == defaults);
  }
}

TEST(ServerFragmentsTest, TheReplyBudgetRefusesAsInTheMessageModes) {
  ServerOptions options;
  options.inflight_budget_bytes = uint64_t{1} << 20;
  options.max_reply_bytes = uint64_t{1} << 20;  // a 10,000-item reply's estimate is far over
  std::unique_ptr<RecoServer> server = StartFragmentsServer(options);
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(*server);
  RawReply refused = CallRaw(channel.get(), MakeRequest(kMaxItemCount, v1::TEXT_PROFILE_REALISTIC));
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.status.error_message().find("max_reply_bytes"), std::string::npos)
      << refused.status.error_message();
  EXPECT_TRUE(CallRaw(channel.get(), MakeRequest(200, v1::TEXT_PROFILE_REALISTIC)).status.ok());
  EXPECT_EQ(server->Stats(false).rpc_over_budget(), 1u);
}

}  // namespace
}  // namespace reco::testing
