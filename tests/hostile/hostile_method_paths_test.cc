// Calls to paths the server does not serve, and served methods called the wrong way,
// in every serving mode (the four memory modes, fragments and the ceiling) on both
// kinds of port (insecure and TLS), and every mode through the async API too
// (reco_server --api async: Recommend on completion queues beside the callback
// services: stats, health, reflection, the unserved-method handler).
//
// Why: gRPC answers a path it does not serve with its own handler, and in the modes
// with a reply budget that handler's call context went through the server's
// ContextAllocator, which deleted a context it had not made: one call to an unknown
// method aborted the process (issue 20). Every such path must get a status a user
// can act on, and leave the server serving the exact reply.
//
// Each case is one call; after all of a test's calls the server must be whole
// (hostile_server.h) and serve a correct Recommend on the same channel.
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <grpcpp/generic/generic_stub.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "rpc/health_check.h"
#include "rpc/unary_call.h"
#include "server/ceiling_service.h"
#include "tests/hostile/hostile_server.h"

namespace reco::hostile {
namespace {

constexpr char kRecommend[] = "/reco.v1.Recommender/Recommend";

using Param = std::tuple<std::string, PortKind>;

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return absl::StrCat(std::get<0>(info.param), "_", PortKindName(std::get<1>(info.param)));
}

// The server-wide ServerReflectionRequest { list_services: "" }: field 7, empty.
std::string ListServicesRequest() { return std::string("\x3a\x00", 2); }

class HostileMethodPathsTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    mode_ = std::get<0>(GetParam());
    kind_ = std::get<1>(GetParam());
    server_ = StartServerOn(mode_, kind_);
    ASSERT_NE(server_, nullptr);
    channel_ = ChannelTo(*server_, kind_);
  }

  bool ceiling() const { return mode_ == "ceiling" || mode_ == "ceiling_async"; }

  // What a correct Recommend of `request` must get back: its own reply, or the
  // ceiling's one reply whatever was asked.
  std::string Expected(const v1::RecommendRequest& request) const {
    return ExpectedBytes(ceiling() ? DefaultCeilingRequest() : request);
  }

  // The server is whole and still answers Recommend with the exact bytes.
  void ExpectServing(const std::string& after) {
    if (!ceiling()) {
      ExpectWhole(*server_, channel_.get(), after);
      return;
    }
    v1::RecommendRequest probe = Request(20, v1::TEXT_PROFILE_REALISTIC, 77);
    Reply reply = CallBytes(channel_.get(), probe.SerializeAsString(), absl::Seconds(20));
    EXPECT_TRUE(reply.status.ok()) << "after " << after << ": " << reply.status.error_message();
    EXPECT_TRUE(reply.bytes == Expected(probe)) << "after " << after << ": wrong reply bytes";
  }

  std::string mode_;
  PortKind kind_ = PortKind::kInsecure;
  std::unique_ptr<RecoServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_P(HostileMethodPathsTest, UnservedPathsAreUnimplemented) {
  const std::string request = Request(5, v1::TEXT_PROFILE_COMPACT).SerializeAsString();
  for (const char* path : {
           "/no.Such/Method",                    // unknown service
           "/reco.v1.Recommender/NoSuchMethod",  // unknown method of a served service
           "/reco.v1.Recommender/recommend",     // the method, wrong case
           "/reco.v1.recommender/Recommend",     // the service, wrong case
           "/reco.v1.Recommender/Recommend/",    // a trailing slash
           "/reco.v1.Recommender/",              // no method
           "//",                                 // neither
           "/",
           "/grpc.health.v1.Health/NoSuchMethod",  // a built-in service, unknown method
       }) {
    Reply reply = CallBytes(channel_.get(), request, absl::Seconds(20));  // warm: the channel is up
    ASSERT_TRUE(reply.status.ok()) << "before " << path << ": " << reply.status.error_message();
    grpc::GenericStub stub(channel_);
    UnaryReply answer = BlockingUnaryCall(stub, path, request, absl::Now() + absl::Seconds(20));
    EXPECT_EQ(answer.status.error_code(), grpc::StatusCode::UNIMPLEMENTED)
        << path << ": " << answer.status.error_message();
    // A message to act on: what was asked, and what is served.
    EXPECT_NE(answer.status.error_message().find(absl::StrCat("unknown method \"", path, "\"")), std::string::npos)
        << answer.status.error_message();
    EXPECT_NE(answer.status.error_message().find("serves reco.v1.Recommender, reco.v1.ServerStats"), std::string::npos)
        << answer.status.error_message();
  }
  ExpectServing("unary calls to paths the server does not serve");
}

TEST_P(HostileMethodPathsTest, ReflectionV1IsUnimplementedAndV1AlphaAnswers) {
  // Current grpcurl asks v1 first and falls back to v1alpha on UNIMPLEMENTED; gRPC
  // 1.51 serves only v1alpha.
  StreamReply v1 = CallStream(channel_.get(), "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                              {ListServicesRequest()}, absl::Seconds(20));
  EXPECT_EQ(v1.status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << v1.status.error_message();
  EXPECT_NE(v1.status.error_message().find("grpc.reflection.v1alpha.ServerReflection"), std::string::npos)
      << v1.status.error_message();
  EXPECT_EQ(v1.replies, 0);
  StreamReply v1alpha = CallStream(channel_.get(), "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                                   {ListServicesRequest()}, absl::Seconds(20));
  EXPECT_TRUE(v1alpha.status.ok()) << v1alpha.status.error_message();
  EXPECT_EQ(v1alpha.replies, 1);
  ExpectServing("reflection v1 and v1alpha streams");
}

TEST_P(HostileMethodPathsTest, StreamingCallsToTheUnaryMethod) {
  const std::string request = Request(5, v1::TEXT_PROFILE_COMPACT).SerializeAsString();
  // No message at all: nothing to answer -- except by the ceiling, which answers
  // every call with its one reply whatever was sent.
  // Through the async API gRPC refuses a call without a message before any handler
  // (INTERNAL "Unable to parse request"), the ceiling's too.
  const bool answers_empty = mode_ == "ceiling";
  StreamReply none = CallStream(channel_.get(), kRecommend, {}, absl::Seconds(20));
  EXPECT_EQ(none.status.ok(), answers_empty) << none.status.error_message();
  EXPECT_EQ(none.replies, answers_empty ? 1 : 0);
  // Two requests on a unary method: the server reads the first and answers it once.
  StreamReply two = CallStream(channel_.get(), kRecommend, {request, request}, absl::Seconds(20));
  EXPECT_LE(two.replies, 1);
  ExpectServing("streaming calls to the unary Recommend");
}

TEST_P(HostileMethodPathsTest, GarbageToTheStatsServiceIsRefused) {
  grpc::GenericStub stub(channel_);
  UnaryReply answer = BlockingUnaryCall(stub, "/reco.v1.ServerStats/GetStats", std::string("\xff\xff\xff", 3),
                                        absl::Now() + absl::Seconds(20));
  // gRPC parses the request before the handler runs and answers a message that does
  // not parse with UNIMPLEMENTED (NotARequestCode's note, hostile_server.h).
  EXPECT_EQ(answer.status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << answer.status.error_message();
  ExpectServing("garbage sent to GetStats");
}

// Paths a gRPC client library would not send: empty, without the leading slash, with
// bytes that are not text, and long. Over raw HTTP/2, each followed by a valid call
// on the same connection.
TEST_P(HostileMethodPathsTest, RawPathsAreRefusedAndTheConnectionServesOn) {
  const std::vector<std::string> paths = {
      "",
      "reco.v1.Recommender/Recommend",
      std::string("/reco.v1.Recommender/Recommend\0", 31),
      "/\xff\xfe/\x80",
      "/" + std::string(4000, 'a') + "/" + std::string(4000, 'b'),
  };
  v1::RecommendRequest raw_request;  // the raw client's fixed valid request
  raw_request.set_user_id("raw-client");
  raw_request.set_item_count(5);
  raw_request.set_text_profile(v1::TEXT_PROFILE_COMPACT);
  raw_request.set_seed(9);
  const std::string expected_hex = absl::BytesToHexString(Expected(raw_request));
  for (const std::string& path : paths) {
    SCOPED_TRACE(absl::StrCat("path ", absl::CHexEscape(path.substr(0, 40))));
    nlohmann::json j = RunRawHttp2Client(server_->port(), "path '" + absl::BytesToHexString(path) + "'", kind_);
    // Refused somehow: a gRPC status other than OK, a stream reset, or the connection
    // closed -- but never served as if it were Recommend.
    const bool has_status = j.contains("grpc_status") && j["grpc_status"].is_number();
    const bool refused = (has_status && j["grpc_status"].get<int>() != 0) ||
                         (j.contains("reset") && !j["reset"].is_null()) || j.value("http_status", "") != "200";
    EXPECT_TRUE(refused) << j.dump();
    if (has_status) {
      EXPECT_EQ(j["grpc_status"].get<int>(), 12) << j.dump();  // UNIMPLEMENTED
    }
    // The connection goes on serving (unless the server closed it, which is sound).
    if (j.contains("after")) {
      EXPECT_EQ(j["after"].value("grpc_status", nlohmann::json(-1)), 0) << j.dump();
      EXPECT_EQ(j["after"].value("message_hex", ""), expected_hex);
    } else {
      EXPECT_NE(j.value("closed", ""), "reset") << "the server dropped the connection: " << j.dump();
    }
  }
  ExpectServing("raw HTTP/2 calls to odd paths");
}

// Server reflection is a synchronous service in gRPC 1.51: each open stream holds one
// of the server's threads until it ends. A client that holds streams open must not
// grow the server by a thread each: past ServerOptions::max_sync_threads a new stream
// is refused RESOURCE_EXHAUSTED, Recommend is still served, and once the held streams
// end reflection answers again.

// This process's thread count (/proc/self/status); -1 when it cannot be read.
int ProcessThreads() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    int threads = 0;
    if (absl::StartsWith(line, "Threads:") && absl::SimpleAtoi(line.substr(8), &threads)) return threads;
  }
  return -1;
}

// One reflection stream, kept open after its first answer until Close().
class HeldReflectionStream {
 public:
  explicit HeldReflectionStream(std::shared_ptr<grpc::Channel> channel) : stub_(std::move(channel)) {
    context_.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  }
  ~HeldReflectionStream() { Close(); }

  // Asks for the service list; true when the server answered (the stream stays open),
  // false when it ended the call instead (status()).
  bool Open() {
    call_ = stub_.PrepareCall(&context_, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq_);
    call_->StartCall(nullptr);
    if (!Wait()) return Finish();
    grpc::Slice slice(ListServicesRequest());
    grpc::ByteBuffer request(&slice, 1);
    call_->Write(request, nullptr);
    if (!Wait()) return Finish();
    grpc::ByteBuffer reply;
    call_->Read(&reply, nullptr);
    if (!Wait()) return Finish();
    open_ = true;
    return true;
  }

  // Half-closes an open stream and reads it to its end; then status() is the server's.
  void Close() {
    if (open_) {
      open_ = false;
      call_->WritesDone(nullptr);
      Wait();
      grpc::ByteBuffer reply;
      do {
        call_->Read(&reply, nullptr);
      } while (Wait());
      Finish();
    }
    if (call_ == nullptr) return;
    call_.reset();
    cq_.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (cq_.Next(&tag, &ok)) {
    }
  }

  const grpc::Status& status() const { return status_; }

 private:
  // One operation at a time, each waited for.
  bool Wait() {
    void* tag = nullptr;
    bool ok = false;
    return cq_.Next(&tag, &ok) && ok;
  }
  bool Finish() {
    call_->Finish(&status_, nullptr);
    Wait();
    return false;
  }

  grpc::GenericStub stub_;
  grpc::ClientContext context_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  grpc::Status status_;
  bool open_ = false;
};

class HostileReflectionStreamsTest : public ::testing::TestWithParam<PortKind> {};

TEST_P(HostileReflectionStreamsTest, HeldStreamsAreBoundedBySyncThreads) {
  std::unique_ptr<RecoServer> server = StartServerOn("heap", GetParam());
  ASSERT_NE(server, nullptr);
  std::shared_ptr<grpc::Channel> channel = ChannelTo(*server, GetParam());
  const int bound = ServerOptions{}.max_sync_threads;
  {
    HeldReflectionStream warm(channel);  // gRPC's own threads started before counting
    ASSERT_TRUE(warm.Open()) << warm.status().error_message();
  }
  const int threads_before = ProcessThreads();
  ASSERT_GT(threads_before, 0);
  const int streams = 4 * bound;  // on one connection: within its 256 streams
  std::vector<std::unique_ptr<HeldReflectionStream>> held;
  int answered = 0;
  int refused = 0;
  for (int i = 0; i < streams; ++i) {
    held.push_back(std::make_unique<HeldReflectionStream>(channel));
    if (held.back()->Open()) {
      ++answered;
      continue;
    }
    ++refused;
    EXPECT_EQ(held.back()->status().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << held.back()->status().error_message();
  }
  EXPECT_GE(answered, 1);
  EXPECT_LE(answered, bound);
  EXPECT_EQ(answered + refused, streams);
  // The server's threads (this process's, less the client's few: gRPC may start an
  // executor thread or two for the client side) grow by the bound at most.
  EXPECT_LE(ProcessThreads() - threads_before, bound + 4) << answered << " streams held open";
  ExpectWhole(*server, channel.get(), "reflection streams held open");
  // Health is a callback service too: a probe still gets its answer.
  absl::StatusOr<HealthStatus> health = CheckHealth(absl::StrCat("127.0.0.1:", server->port()), "", absl::Seconds(20),
                                                    GetParam() == PortKind::kTls ? Certificate().cert_pem : "");
  EXPECT_TRUE(health.ok() && *health == HealthStatus::kServing)
      << (health.ok() ? HealthStatusName(*health) : health.status().message());
  for (std::unique_ptr<HeldReflectionStream>& stream : held) {
    stream->Close();
    if (!stream->status().ok()) {
      EXPECT_EQ(stream->status().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
          << stream->status().error_message();
    }
  }
  HeldReflectionStream again(channel);
  EXPECT_TRUE(again.Open()) << "after the held streams ended: " << again.status().error_message();
}

INSTANTIATE_TEST_SUITE_P(Ports, HostileReflectionStreamsTest, ::testing::Values(PortKind::kInsecure, PortKind::kTls),
                         [](const ::testing::TestParamInfo<PortKind>& info) { return PortKindName(info.param); });

std::vector<Param> AllModesAndPorts() {
  std::vector<Param> params;
  std::vector<std::string> modes = ModesAndApis();
  modes.push_back("ceiling");
  modes.push_back(absl::StrCat("ceiling", kAsyncSuffix));
  for (const std::string& mode : modes) {
    for (PortKind kind : {PortKind::kInsecure, PortKind::kTls}) params.emplace_back(mode, kind);
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(ModesAndPorts, HostileMethodPathsTest, ::testing::ValuesIn(AllModesAndPorts()), ParamName);

}  // namespace
}  // namespace reco::hostile
