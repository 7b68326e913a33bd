// See hostile_server.h.
#include "tests/hostile/hostile_server.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/response_builder.h"
#include "server/ceiling_service.h"

namespace reco::hostile {

namespace {

bool IsAsync(const std::string& mode) { return absl::EndsWith(mode, kAsyncSuffix); }

// The serving mode's name without kAsyncSuffix.
std::string BaseMode(const std::string& mode) {
  return IsAsync(mode) ? mode.substr(0, mode.size() - strlen(kAsyncSuffix)) : mode;
}

// Mode and API from a name ParseServingMode knows, with or without kAsyncSuffix.
bool ParseModeAndApi(const std::string& mode, ServerOptions* options) {
  if (!ParseServingMode(BaseMode(mode), &options->mode)) return false;
  options->api = IsAsync(mode) ? ServingApi::kAsync : ServingApi::kCallback;
  options->async_threads = kAsyncThreads;
  return true;
}

}  // namespace

uint64_t RestingLeases(const RecoServer& server) {
  const ServerOptions& o = server.options();
  const bool has_store = o.mode != ServingMode::kHeap && MessageMemoryMode(o.mode).has_value();
  return o.api == ServingApi::kAsync && has_store ? static_cast<uint64_t>(o.async_threads) : 0;
}

std::vector<std::string> ModesAndApis() {
  std::vector<std::string> modes = RequestServingModes();
  for (const std::string& mode : RequestServingModes()) modes.push_back(absl::StrCat(mode, kAsyncSuffix));
  return modes;
}

std::vector<std::string> DifferingModesAndApis() {
  return {"arena_pool", "fragments", absl::StrCat("arena_pool", kAsyncSuffix), absl::StrCat("fragments", kAsyncSuffix)};
}

void SetServingMode(const std::string& mode, ServerOptions* options) {
  EXPECT_TRUE(ParseModeAndApi(mode, options)) << "not a serving mode: " << mode;
  EXPECT_TRUE(options->mode != ServingMode::kCeiling) << "the ceiling ignores its requests: nothing to attack";
}

bool HasStore(const std::string& mode) {
  ServingMode serving;
  return ParseServingMode(BaseMode(mode), &serving) && MessageMemoryMode(serving).has_value() &&
         serving != ServingMode::kHeap;
}

bool HasGrpcParser(const std::string& mode) {
  ServingMode serving;
  return ParseServingMode(BaseMode(mode), &serving) && MessageMemoryMode(serving).has_value();
}

grpc::StatusCode NotARequestCode(const std::string& mode) {
  if (!HasGrpcParser(mode)) return grpc::StatusCode::INVALID_ARGUMENT;
  return IsAsync(mode) ? grpc::StatusCode::INTERNAL : grpc::StatusCode::UNIMPLEMENTED;
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
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server.port()), grpc::InsecureChannelCredentials(), args);
}

std::string PortKindName(PortKind kind) { return kind == PortKind::kTls ? "tls" : "insecure"; }

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The certificate's directory, removed when the process exits.
char g_certificate_dir[] = "/tmp/reco-hostile-tls.XXXXXX";
void RemoveCertificateDir() {
  std::error_code ignored;
  std::filesystem::remove_all(g_certificate_dir, ignored);
}

TestCertificate MakeCertificate() {
  TestCertificate made;
  const char* dir = mkdtemp(g_certificate_dir);
  if (dir == nullptr) {
    ADD_FAILURE() << "mkdtemp failed";
    return made;
  }
  std::atexit(RemoveCertificateDir);
  const std::string cert = absl::StrCat(dir, "/server.crt"), key = absl::StrCat(dir, "/server.key");
  // An EC key: made in milliseconds, where RSA takes a noticeable part of a second.
  const std::string command = absl::StrCat(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost "
      "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ",
      key, " -out ", cert, " >", dir, "/openssl.log 2>&1");
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "openssl could not make a certificate: " << ReadFile(absl::StrCat(dir, "/openssl.log"));
    return made;
  }
  made.cert_pem = ReadFile(cert);
  made.key_pem = ReadFile(key);
  made.cert_file = cert;
  return made;
}

}  // namespace

const TestCertificate& Certificate() {
  static const TestCertificate* certificate = new TestCertificate(MakeCertificate());
  return *certificate;
}

std::unique_ptr<RecoServer> StartServerOn(const std::string& mode, PortKind kind) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  EXPECT_TRUE(ParseModeAndApi(mode, &options)) << "not a serving mode: " << mode;
  options.store.max_idle = kMaxIdle;
  options.ceiling_request = DefaultCeilingRequest();
  if (kind == PortKind::kTls) {
    options.tls_cert_pem = Certificate().cert_pem;
    options.tls_key_pem = Certificate().key_pem;
  }
  auto server = RecoServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

std::shared_ptr<grpc::Channel> ChannelTo(const RecoServer& server, PortKind kind) {
  if (kind == PortKind::kInsecure) return ChannelTo(server);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetSslTargetNameOverride("localhost");
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = Certificate().cert_pem;
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server.port()), grpc::SslCredentials(ssl), args);
}

StreamReply CallStream(grpc::Channel* channel, const std::string& method, const std::vector<std::string>& messages,
                       absl::Duration deadline) {
  grpc::GenericStub stub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  grpc::CompletionQueue cq;
  StreamReply out;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call = stub.PrepareCall(&context, method, &cq);
  // One operation at a time, each waited for: the tag is not needed to tell them apart.
  auto wait = [&cq] {
    void* tag = nullptr;
    bool ok = false;
    return cq.Next(&tag, &ok) && ok;
  };
  call->StartCall(nullptr);
  bool open = wait();
  for (const std::string& message : messages) {
    if (!open) break;
    grpc::Slice slice(message);
    grpc::ByteBuffer buffer(&slice, 1);
    call->Write(buffer, nullptr);
    open = wait();
    if (open) ++out.writes_accepted;
  }
  if (open) {
    call->WritesDone(nullptr);
    wait();
  }
  while (true) {
    grpc::ByteBuffer reply;
    call->Read(&reply, nullptr);
    if (!wait()) break;
    ++out.replies;
  }
  call->Finish(&out.status, nullptr);
  wait();
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  return out;
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
  return RunRawHttp2Client(port, args, PortKind::kInsecure);
}

nlohmann::json RunRawHttp2Client(int port, const std::string& args, PortKind kind) {
  std::string command = absl::StrCat(kind == PortKind::kTls ? "RAW_HTTP2_TLS_CA=" + Certificate().cert_file + " " : "",
                                     "/usr/bin/python3 ", RECO_RAW_HTTP2_CLIENT, " ", port, " ", args);
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
    if (out->store().in_use() == RestingLeases(server) && out->budget().in_use_bytes() == 0) return true;
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void ExpectStoreWhole(RecoServer& server, const std::string& when) {
  v1::StatsSnapshot s;
  EXPECT_TRUE(Settled(server, &s)) << when << ": " << s.store().in_use() << " leases and " << s.budget().in_use_bytes()
                                   << " budget bytes still out after 20 s";
  // A store-less server reports none (its zeros below then prove nothing); a store
  // that vanished from the stats would make them prove nothing too.
  EXPECT_EQ(s.has_store(), HasStore(s.mode())) << when << ": mode " << s.mode();
  // Under the async API the armed calls' leases were taken when the serving threads
  // started: in a window opened before that they are acquired and not yet released;
  // in one opened after (a reset at rest), every lease taken was given back as often.
  const uint64_t resting = RestingLeases(server);
  EXPECT_TRUE(s.store().acquired() == s.store().released() || s.store().acquired() == s.store().released() + resting)
      << when << ": acquired " << s.store().acquired() << ", released " << s.store().released() << ", armed "
      << resting;
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
