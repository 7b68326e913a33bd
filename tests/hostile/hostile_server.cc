// See hostile_server.h.
#include "tests/hostile/hostile_server.h"

#include <atomic>
#include <cstdio>
#include <chrono>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "core/response_builder.h"

namespace reco::hostile {

void SetServingMode(const std::string& mode, ServerOptions* options) {
  EXPECT_TRUE(ParseServingMode(mode, options)) << "not a serving mode: " << mode;
  EXPECT_TRUE(options->reply_path != ReplyPath::kCeiling) << "the ceiling ignores its requests: nothing to attack";
}

bool HasStore(const std::string& mode) {
  ServerOptions options;
  return ParseServingMode(mode, &options) && options.reply_path == ReplyPath::kMessages &&
         options.mode != MemoryMode::kHeap;
}

bool HasGrpcParser(const std::string& mode) {
  ServerOptions options;
  return ParseServingMode(mode, &options) && options.reply_path == ReplyPath::kMessages;
}

grpc::StatusCode NotARequestCode(const std::string& mode) {
  return HasGrpcParser(mode) ? grpc::StatusCode::UNIMPLEMENTED : grpc::StatusCode::INVALID_ARGUMENT;
}

std::string ModeName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

std::unique_ptr<RecoServer> StartServer(const std::string& mode) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  SetServingMode(mode, &options);
  options.store.max_idle = kMaxIdle;
  auto server = RecoServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

std::shared_ptr<grpc::Channel> ChannelTo(const RecoServer& server) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  // A channel of its own per call site: gRPC would otherwise share one connection
  // between channels with equal arguments, and a test that breaks one would break all.
  static std::atomic<int> next_id{0};
  args.SetInt("reco.hostile.channel_id", next_id.fetch_add(1));
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server.port()), grpc::InsecureChannelCredentials(),
                                   args);
}

Reply CallBytes(grpc::Channel* channel, const std::string& request_bytes, absl::Duration deadline) {
  return testing::CallRawBytes(channel, request_bytes, deadline);
}

v1::RecommendRequest Request(uint32_t items, v1::TextProfile profile, uint64_t seed) {
  v1::RecommendRequest request;
  request.set_user_id("hostile-user");
  request.set_item_count(items);
  request.set_text_profile(profile);
  request.set_seed(seed);
  return request;
}

std::string ExpectedBytes(const v1::RecommendRequest& request) { return testing::ExpectedBytes(request); }

nlohmann::json RunRawHttp2Client(int port, const std::string& args) {
  std::string command = absl::StrCat("/usr/bin/python3 ", RECO_RAW_HTTP2_CLIENT, " ", port, " ", args);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return nlohmann::json();
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  int rc = pclose(pipe);
  EXPECT_EQ(rc, 0) << command << " printed: " << out;
  if (out.empty()) return nlohmann::json::object();  // abrupt_close_mid_response prints nothing
  return nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
}

namespace {

// True once every lease and every reply reservation is back; sanitizer builds can
// take seconds to drain.
bool Settled(RecoServer& server, v1::StatsSnapshot* out) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (true) {
    *out = server.Stats(/*reset=*/false);
    if (out->store().in_use() == 0 && out->budget().in_use_bytes() == 0) return true;
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void ExpectStoreWhole(RecoServer& server, const std::string& when) {
  v1::StatsSnapshot s;
  EXPECT_TRUE(Settled(server, &s)) << when << ": " << s.store().in_use() << " leases and "
                                   << s.budget().in_use_bytes() << " budget bytes still out after 20 s";
  // A store-less server reports none (its zeros below then prove nothing); a store
  // that vanished from the stats would make them prove nothing too.
  EXPECT_EQ(s.has_store(), HasStore(s.mode())) << when << ": mode " << s.mode();
  EXPECT_EQ(s.store().acquired(), s.store().released()) << when;
  EXPECT_LE(s.store().idle(), kMaxIdle) << when;
}

}  // namespace

void ExpectWhole(RecoServer& server, grpc::Channel* channel, const std::string& after) {
  ExpectStoreWhole(server, "after " + after);
  v1::RecommendRequest probe = Request(20, v1::TEXT_PROFILE_REALISTIC, 77);
  Reply reply = CallBytes(channel, probe.SerializeAsString(), absl::Seconds(20));
  EXPECT_TRUE(reply.status.ok()) << "after " << after << ": " << reply.status.error_message();
  EXPECT_TRUE(reply.bytes == ExpectedBytes(probe)) << "after " << after << ": wrong reply bytes";
  ExpectStoreWhole(server, "after the probe that followed " + after);
}

}  // namespace reco::hostile
