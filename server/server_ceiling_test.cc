// The ceiling mode over real RPCs: its one reply is exactly BuildResponse's bytes for
// its fixed request, whatever the request says; it serves many RPCs from many
// clients; ServerStats reports mode "ceiling" with every RPC counted.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/response_builder.h"
#include "server/ceiling_service.h"
#include "server/testing/server_test_util.h"

namespace reco {
namespace {

using testing::CallRaw;
using testing::MakeRequest;

std::unique_ptr<RecoServer> StartCeiling(const v1::RecommendRequest& fixed, ServingApi api = ServingApi::kCallback) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.api = api;
  options.async_threads = testing::kTestAsyncThreads;
  options.mode = ServingMode::kCeiling;
  options.ceiling_request = fixed;
  auto server = RecoServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

TEST(ServerCeilingTest, RepliesWithTheBuildersBytesForItsFixedRequest) {
  for (const v1::RecommendRequest& fixed : {DefaultCeilingRequest(), MakeRequest(10, v1::TEXT_PROFILE_COMPACT, 3)}) {
    auto server = StartCeiling(fixed);
    ASSERT_NE(server, nullptr);
    auto channel = testing::ChannelTo(*server);
    const std::string want = testing::ExpectedBytes(fixed);
    testing::RawReply same = CallRaw(channel.get(), fixed);
    ASSERT_TRUE(same.status.ok()) << same.status.error_message();
    EXPECT_EQ(same.bytes, want) << fixed.ShortDebugString();
    // It ignores the request: a different one gets the very same bytes (that is why
    // it is a ceiling, not a server to copy).
    testing::RawReply other = CallRaw(channel.get(), MakeRequest(1, v1::TEXT_PROFILE_REALISTIC, 99));
    ASSERT_TRUE(other.status.ok()) << other.status.error_message();
    EXPECT_EQ(other.bytes, want);
  }
}

// --api async: the same one reply to any request, every call counted.
TEST(ServerCeilingTest, AsyncRepliesWithTheSameBytes) {
  const v1::RecommendRequest fixed = DefaultCeilingRequest();
  auto server = StartCeiling(fixed, ServingApi::kAsync);
  ASSERT_NE(server, nullptr);
  auto channel = testing::ChannelTo(*server);
  const std::string want = testing::ExpectedBytes(fixed);
  for (const v1::RecommendRequest& request : {fixed, MakeRequest(1, v1::TEXT_PROFILE_REALISTIC, 99)}) {
    testing::RawReply reply = CallRaw(channel.get(), request);
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    EXPECT_EQ(reply.bytes, want);
  }
  EXPECT_EQ(server->Stats(false).rpcs(), 2u);
}

TEST(ServerCeilingTest, DefaultIsTheLoadClientsFirstRequest) {
  v1::RecommendRequest r = DefaultCeilingRequest();
  EXPECT_EQ(r.user_id(), "load-user-0");
  EXPECT_EQ(EffectiveItemCount(r), kDefaultItemCount);
  EXPECT_EQ(r.text_profile(), v1::TEXT_PROFILE_REALISTIC);
  EXPECT_EQ(r.seed(), 1u);
}

TEST(ServerCeilingTest, ServesManyRpcsAndCountsThem) {
  const v1::RecommendRequest fixed = DefaultCeilingRequest();
  auto server = StartCeiling(fixed);
  ASSERT_NE(server, nullptr);
  const std::string want = testing::ExpectedBytes(fixed);
  constexpr int kClients = 8, kCallsEach = 50;
  std::atomic<int> right{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      auto channel = testing::ChannelTo(*server);
      for (int i = 0; i < kCallsEach; ++i) {
        testing::RawReply reply = CallRaw(channel.get(), fixed);
        if (reply.status.ok() && reply.bytes == want) ++right;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(right.load(), kClients * kCallsEach);

  v1::StatsSnapshot stats = server->Stats(/*reset=*/false);
  EXPECT_EQ(stats.mode(), "ceiling");
  EXPECT_EQ(stats.rpcs(), static_cast<uint64_t>(kClients * kCallsEach));
  EXPECT_EQ(stats.rpc_errors(), 0u);
  // The build phase is the reply's copy: one sample per RPC. Nothing is serialized
  // or released per RPC, so those phases take no sample.
  EXPECT_EQ(stats.build().latency().count(), stats.rpcs());
  EXPECT_EQ(stats.serialize().latency().count(), 0u);
  EXPECT_EQ(stats.release().latency().count(), 0u);
  // A copy of a ByteBuffer is a new header over the same slice, never the ~110 KB
  // payload: far fewer bytes per RPC than the reply.
  EXPECT_LT(stats.build().allocations().bytes() / stats.rpcs(), want.size() / 100);
}

TEST(ServerCeilingTest, RefusesAnInvalidFixedRequest) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.mode = ServingMode::kCeiling;
  options.ceiling_request = MakeRequest(kMaxItemCount + 1, v1::TEXT_PROFILE_COMPACT);
  auto server = RecoServer::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("ceiling_request"), std::string::npos) << server.status();
}

}  // namespace
}  // namespace reco
