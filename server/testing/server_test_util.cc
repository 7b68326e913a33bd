// See server_test_util.h.
#include "server/testing/server_test_util.h"

#include <thread>

#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "core/response_builder.h"
#include "rpc/unary_call.h"

namespace reco::testing {

std::unique_ptr<RecoServer> StartTestServer(MemoryMode mode, bool measure, ServingApi api) {
  return StartTestServer(ServingModeFor(mode), measure, api);
}

std::vector<ServingMode> MessageServingModes() {
  std::vector<ServingMode> modes;
  for (MemoryMode mode : AllMemoryModes()) modes.push_back(ServingModeFor(mode));
  modes.push_back(ServingMode::kArenaAlias);
  return modes;
}

std::unique_ptr<RecoServer> StartTestServer(ServingMode mode, bool measure, ServingApi api) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.mode = mode;
  options.measure_phases = measure;
  options.api = api;
  options.async_threads = kTestAsyncThreads;
  auto server = RecoServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  if (!server.ok()) return nullptr;
  return std::move(*server);
}

std::shared_ptr<grpc::Channel> ChannelTo(const RecoServer& server) {
  grpc::ChannelArguments args;
  // A 10,000-item realistic response is over gRPC's 4 MB client default (hostile_limits_test).
  args.SetMaxReceiveMessageSize(-1);
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server.port()), grpc::InsecureChannelCredentials(), args);
}

RawReply CallRawBytes(grpc::Channel* channel, const std::string& request_bytes, absl::Duration deadline) {
  grpc::GenericStub stub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  UnaryReply reply = BlockingUnaryCall(stub, "/reco.v1.Recommender/Recommend", request_bytes, absl::Now() + deadline);
  return RawReply{reply.status, reply.status.ok() ? reply.Bytes() : std::string()};
}

RawReply CallRaw(grpc::Channel* channel, const v1::RecommendRequest& request, absl::Duration deadline) {
  return CallRawBytes(channel, request.SerializeAsString(), deadline);
}

v1::RecommendRequest MakeRequest(uint32_t items, v1::TextProfile profile, uint64_t seed) {
  v1::RecommendRequest request;
  request.set_user_id("user-42");
  request.set_item_count(items);
  request.set_text_profile(profile);
  request.set_seed(seed);
  return request;
}

std::string ExpectedBytes(const v1::RecommendRequest& request) {
  return BuildResponseBytes(DefaultCatalogue(), request);
}

uint64_t RestingLeases(MemoryMode mode, ServingApi api) {
  return api == ServingApi::kAsync && mode != MemoryMode::kHeap ? kTestAsyncThreads : 0;
}

uint64_t RestingLeases(ServingMode mode, ServingApi api) { return RestingLeases(*MessageMemoryMode(mode), api); }

bool WaitForReleases(RecoServer& server, absl::Duration timeout, uint64_t release_count, uint64_t resting_leases) {
  absl::Time give_up = absl::Now() + timeout;
  while (true) {
    v1::StatsSnapshot s = server.Stats(/*reset=*/false);
    if (s.store().in_use() == resting_leases && s.release().latency().count() >= release_count) return true;
    if (absl::Now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace reco::testing
