// The Recommender service over real RPCs, in all four memory modes and arena_alias: the same bytes
// everywhere, actionable errors, many clients at once, and messages always given
// back -- answered, refused, cancelled or past their deadline.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/reply_memory.h"
#include "core/response_builder.h"
#include "core/test_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "rpc/health_check.h"
#include "server/testing/server_test_util.h"

namespace reco {
namespace {

using testing::CallRaw;
using testing::MakeRequest;

std::vector<v1::RecommendRequest> SampleRequests() {
  std::vector<v1::RecommendRequest> requests = {
      MakeRequest(0, v1::TEXT_PROFILE_REALISTIC),  // 0 means the default, 200
      MakeRequest(200, v1::TEXT_PROFILE_COMPACT),
      MakeRequest(1, v1::TEXT_PROFILE_REALISTIC, 7),
      MakeRequest(1000, v1::TEXT_PROFILE_REALISTIC, 99),
  };
  v1::RecommendRequest no_user = MakeRequest(30, v1::TEXT_PROFILE_COMPACT, 3);
  no_user.clear_user_id();
  requests.push_back(no_user);
  return requests;
}

// Every mode that builds a reply message through each API (reco_server --api
// callback|async).
class ServerRpcTest : public ::testing::TestWithParam<std::tuple<ServingMode, ServingApi>> {
 protected:
  ServingMode mode() const { return std::get<0>(GetParam()); }
  ServingApi api() const { return std::get<1>(GetParam()); }
  std::unique_ptr<RecoServer> Start() const { return testing::StartTestServer(mode(), /*measure=*/true, api()); }
  // Store leases in use at rest: the async serving threads' armed calls.
  uint64_t resting() const { return testing::RestingLeases(mode(), api()); }
};

std::string ParamName(const ::testing::TestParamInfo<std::tuple<ServingMode, ServingApi>>& info) {
  return absl::StrCat(ServingModeName(std::get<0>(info.param)), "_", ServingApiName(std::get<1>(info.param)));
}

TEST_P(ServerRpcTest, AnswersWithTheBuildersBytes) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  auto channel = testing::ChannelTo(*server);
  for (const v1::RecommendRequest& request : SampleRequests()) {
    testing::RawReply reply = CallRaw(channel.get(), request);
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    // Byte for byte what BuildResponse gives on the heap, so identical across modes.
    EXPECT_EQ(reply.bytes, testing::ExpectedBytes(request)) << request.ShortDebugString();
  }
}

TEST_P(ServerRpcTest, RefusesBadRequestsWithTheLimitAndKeepsServing) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  auto channel = testing::ChannelTo(*server);

  testing::RawReply too_many = CallRaw(channel.get(), MakeRequest(kMaxItemCount + 1, v1::TEXT_PROFILE_COMPACT));
  EXPECT_EQ(too_many.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(too_many.status.error_message().find("item_count is 10001"), std::string::npos)
      << too_many.status.error_message();
  EXPECT_NE(too_many.status.error_message().find("limit is 10000"), std::string::npos);

  v1::RecommendRequest unknown_profile = MakeRequest(10, v1::TEXT_PROFILE_COMPACT);
  unknown_profile.set_text_profile(static_cast<v1::TextProfile>(7));
  testing::RawReply bad_profile = CallRaw(channel.get(), unknown_profile);
  EXPECT_EQ(bad_profile.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(bad_profile.status.error_message().find("text_profile 7"), std::string::npos)
      << bad_profile.status.error_message();

  // Right after, the server answers normally.
  v1::RecommendRequest good = MakeRequest(kMaxItemCount, v1::TEXT_PROFILE_COMPACT);
  testing::RawReply ok = CallRaw(channel.get(), good);
  ASSERT_TRUE(ok.status.ok()) << ok.status.error_message();
  EXPECT_EQ(ok.bytes, testing::ExpectedBytes(good));

  ASSERT_TRUE(testing::WaitForReleases(*server, absl::Seconds(10), 0, resting()));
  v1::StatsSnapshot s = server->Stats(false);
  EXPECT_EQ(s.rpcs(), 1u);
  EXPECT_EQ(s.rpc_errors(), 2u);
}

TEST_P(ServerRpcTest, RefusesOversizedRequestsBeforeTheHandler) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  auto channel = testing::ChannelTo(*server);
  v1::RecommendRequest huge = MakeRequest(1, v1::TEXT_PROFILE_COMPACT);
  huge.set_user_id(std::string(100 * 1024, 'u'));  // over the 64 KiB default cap
  EXPECT_EQ(CallRaw(channel.get(), huge).status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(CallRaw(channel.get(), MakeRequest(1, v1::TEXT_PROFILE_COMPACT)).status.ok());
}

TEST_P(ServerRpcTest, ManyConcurrentClientsAllGetTheirOwnAnswers) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  constexpr int kThreads = 8, kCallsPerThread = 25;
  std::vector<v1::RecommendRequest> requests;
  std::vector<std::string> expected;
  for (int t = 0; t < kThreads; ++t) {
    // Each thread its own seed and size, so a mixed-up response would show.
    requests.push_back(MakeRequest(50 + 10 * t, t % 2 ? v1::TEXT_PROFILE_COMPACT : v1::TEXT_PROFILE_REALISTIC, t));
    expected.push_back(testing::ExpectedBytes(requests.back()));
  }
  std::atomic<int> correct{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto channel = testing::ChannelTo(*server);  // a connection per client
      for (int i = 0; i < kCallsPerThread; ++i) {
        testing::RawReply reply = CallRaw(channel.get(), requests[t]);
        if (reply.status.ok() && reply.bytes == expected[t]) ++correct;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(correct.load(), kThreads * kCallsPerThread);
  ASSERT_TRUE(testing::WaitForReleases(*server, absl::Seconds(10), 0, resting()));
  v1::StatsSnapshot s = server->Stats(false);
  EXPECT_EQ(s.rpcs(), static_cast<uint64_t>(kThreads * kCallsPerThread));
  if (mode() != ServingMode::kHeap) {
    EXPECT_EQ(s.store().acquired(), s.store().released() + resting());
    EXPECT_LE(s.store().idle(), MessageStoreOptions().max_idle);
  }
}

TEST_P(ServerRpcTest, CancelledAndExpiredRpcsGiveTheirMessagesBack) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  auto channel = testing::ChannelTo(*server);
  // A large response that takes milliseconds to build and send, against a deadline
  // too short for it: the client sees DEADLINE_EXCEEDED, the server must still
  // release what it took.
  v1::RecommendRequest big = MakeRequest(kMaxItemCount, v1::TEXT_PROFILE_REALISTIC);
  int expired = 0;
  for (int i = 0; i < 3; ++i) {
    testing::RawReply reply = CallRaw(channel.get(), big, absl::Milliseconds(2));
    if (reply.status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) ++expired;
  }
  EXPECT_GT(expired, 0) << "no RPC ran out of time: the test proved nothing";

  // Cancelled by the client while in flight.
  std::vector<std::thread> cancellers;
  for (int i = 0; i < 2; ++i) {
    cancellers.emplace_back([&] {
      grpc::ClientContext context;
      auto stub = v1::Recommender::NewStub(channel);
      v1::RecommendResponse response;
      std::thread cancel([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        context.TryCancel();
      });
      grpc::Status status = stub->Recommend(&context, big, &response);
      cancel.join();
      (void)status;  // CANCELLED, or OK when the reply won the race
    });
  }
  for (std::thread& t : cancellers) t.join();

  // A cancelled call can still reach the server after the client gave up on it, so
  // the store is judged once it is at rest: every lease it handed out is back. A
  // holder never released keeps it from resting, and the wait fails.
  v1::StatsSnapshot s;
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (true) {
    s = server->Stats(false);
    if (s.store().in_use() == resting() && s.store().acquired() == s.store().released() + resting()) break;
    ASSERT_LT(absl::Now(), give_up) << "the store still has leases in use: a message holder was never released";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // And it still serves.
  EXPECT_TRUE(CallRaw(channel.get(), MakeRequest(3, v1::TEXT_PROFILE_COMPACT)).status.ok());
}

TEST_P(ServerRpcTest, ShutdownFinishesRpcsInFlight) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  auto channel = testing::ChannelTo(*server);
  ASSERT_TRUE(CallRaw(channel.get(), MakeRequest(1, v1::TEXT_PROFILE_COMPACT)).status.ok());  // connected
  const std::string target = "127.0.0.1:" + std::to_string(server->port());
  ASSERT_EQ(CheckHealth(target, "", absl::Seconds(5)).value_or(HealthStatus::kUnknown), HealthStatus::kServing);

  v1::RecommendRequest big = MakeRequest(kMaxItemCount, v1::TEXT_PROFILE_REALISTIC);
  const std::string expected = testing::ExpectedBytes(big);
  constexpr int kInFlight = 4;
  std::atomic<int> completed{0};
  std::vector<std::string> outcomes(kInFlight);  // each call's, for the failure message
  std::vector<std::thread> clients;
  for (int i = 0; i < kInFlight; ++i) {
    clients.emplace_back([&, i] {
      testing::RawReply reply = CallRaw(channel.get(), big, absl::Seconds(30));
      if (reply.status.ok() && reply.bytes == expected) ++completed;
      outcomes[i] = reply.status.ok() ? (reply.bytes == expected ? "OK" : "OK, wrong bytes")
                                      : absl::StrCat(reply.status.error_code(), " ", reply.status.error_message());
    });
  }
  // Wait until the server's handler has taken all of them (each reserves its reply in
  // the budget as it starts; the first call above did too), then shut down while some
  // are still being built or sent. (Counting finished calls plus leases in use counted
  // a call twice between its finish and its release, and shut down one call early.)
  absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (absl::Now() < give_up) {
    v1::StatsSnapshot s = server->Stats(false);
    if (s.budget().admitted() >= static_cast<uint64_t>(kInFlight) + 1) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  server->Shutdown(absl::Seconds(20));
  server->Wait();
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(completed.load(), kInFlight) << absl::StrJoin(outcomes, "; ");
  EXPECT_FALSE(CheckHealth(target, "", absl::Milliseconds(500)).ok());
}

// --api async answers what --api callback answers, as messages, in the same mode.
TEST_P(ServerRpcTest, RepliesEqualTheCallbackServersAsMessages) {
  if (api() == ServingApi::kCallback) GTEST_SKIP() << "the reference itself";
  auto server = Start();
  auto reference = testing::StartTestServer(mode(), /*measure=*/true, ServingApi::kCallback);
  ASSERT_NE(server, nullptr);
  ASSERT_NE(reference, nullptr);
  auto channel = testing::ChannelTo(*server);
  auto reference_channel = testing::ChannelTo(*reference);
  for (const v1::RecommendRequest& request : SampleRequests()) {
    testing::RawReply reply = CallRaw(channel.get(), request);
    testing::RawReply expected = CallRaw(reference_channel.get(), request);
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    ASSERT_TRUE(expected.status.ok()) << expected.status.error_message();
    v1::RecommendResponse got, want;
    ASSERT_TRUE(got.ParseFromString(reply.bytes));
    ASSERT_TRUE(want.ParseFromString(expected.bytes));
    EXPECT_GT(want.items_size(), 0);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(got, want)) << request.ShortDebugString();
  }
}

// The reply budget: a reply over its cap is refused RESOURCE_EXHAUSTED, a call whose
// deadline passes mid-build is abandoned DEADLINE_EXCEEDED, and every reservation comes
// back; the counts are exact.
TEST_P(ServerRpcTest, TheBudgetRefusesAndComesBackFromAbandonedCalls) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.mode = mode();
  options.api = api();
  options.async_threads = testing::kTestAsyncThreads;
  options.check_every_items = 1;
  // The budget holds one reply of `big`'s size; `over_cap` is past the per-reply cap.
  const v1::RecommendRequest big = MakeRequest(kMaxItemCount / 2, v1::TEXT_PROFILE_REALISTIC);
  const v1::RecommendRequest over_cap = MakeRequest(kMaxItemCount, v1::TEXT_PROFILE_REALISTIC);
  options.max_reply_bytes = EstimateReplyBytes(big);
  options.inflight_budget_bytes = options.max_reply_bytes;
  ASSERT_GT(EstimateReplyBytes(over_cap), options.max_reply_bytes);
  auto started = RecoServer::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  RecoServer& server = **started;
  auto channel = testing::ChannelTo(server);

  testing::RawReply refused = CallRaw(channel.get(), over_cap);
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.status.error_message();
  const v1::StatsSnapshot after_refusal = server.Stats(false);
  EXPECT_EQ(after_refusal.rpc_over_budget(), 1u);
  EXPECT_EQ(after_refusal.budget().refused(), 1u);
  // Milliseconds for 5,000 items, checked after each: bounded retries
  // until the server has abandoned one mid-build (a call that expires before it
  // arrives never reaches the handler).
  // Each try waits for the budget to be free again (the server may still hold the
  // last try's reply after its client gave up). A try can still be refused: its client
  // gives up at its deadline, perhaps before the server has even started it, so the next
  // try may overlap it. Such refusals are counted below, not assumed away.
  auto budget_free = [&] {
    v1::StatsSnapshot s = server.Stats(false);
    for (const absl::Time give_up = absl::Now() + absl::Seconds(10);
         s.budget().in_use_bytes() != 0 && absl::Now() < give_up; s = server.Stats(false)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return s;
  };
  uint64_t tries = 0;
  for (; tries < 50 && budget_free().rpc_abandoned() == 0; ++tries) {
    CallRaw(channel.get(), big, absl::Milliseconds(3));
  }
  ASSERT_TRUE(testing::WaitForReleases(server, absl::Seconds(10), 0, resting()));
  v1::StatsSnapshot s = budget_free();
  EXPECT_GE(s.rpc_abandoned(), 1u) << "no call was abandoned mid-build: the test proved nothing";
  // Every refusal is counted once by the budget and once by the call's status.
  EXPECT_EQ(s.rpc_over_budget(), s.budget().refused());
  EXPECT_LE(s.budget().refused() - after_refusal.budget().refused(), tries);
  EXPECT_EQ(s.budget().admitted(), s.rpcs() + s.rpc_abandoned());
  EXPECT_EQ(s.budget().in_use_bytes(), 0u) << "a reservation was not given back";
  // The whole budget is free again: a reply of the cap's size is admitted and sent.
  testing::RawReply ok = CallRaw(channel.get(), big);
  ASSERT_TRUE(ok.status.ok()) << ok.status.error_message();
  EXPECT_EQ(ok.bytes, testing::ExpectedBytes(big));
}

// TLS options: one of the two alone is refused naming it; text that is not PEM is
// refused at start, and the message neither echoes it nor blames only the port.
// (A working TLS server is server_tls_test's: it needs a certificate made by openssl.)
TEST(ServerTlsOptionsTest, RefusesHalfOrBrokenTlsWithoutEchoingIt) {
  ServerOptions half;
  half.listen = "127.0.0.1:0";
  half.tls_cert_pem = "cert";
  auto refused = RecoServer::Start(half);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("tls_cert_pem without tls_key_pem"), std::string::npos) << refused.status();
  half.tls_cert_pem.clear();
  half.tls_key_pem = "key";
  refused = RecoServer::Start(half);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("tls_key_pem without tls_cert_pem"), std::string::npos) << refused.status();

  ServerOptions broken;
  broken.listen = "127.0.0.1:0";
  broken.tls_cert_pem = "not-a-certificate-SECRET";
  broken.tls_key_pem = "not-a-key-SECRET";
  auto failed = RecoServer::Start(broken);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("TLS certificate and key"), std::string::npos) << failed.status();
  EXPECT_EQ(failed.status().message().find("SECRET"), std::string::npos) << failed.status();
}

INSTANTIATE_TEST_SUITE_P(AllModes, ServerRpcTest,
                         ::testing::Combine(::testing::ValuesIn(testing::MessageServingModes()),
                                            ::testing::Values(ServingApi::kCallback, ServingApi::kAsync)),
                         ParamName);

}  // namespace
}  // namespace reco
