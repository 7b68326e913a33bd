// reco_load's run against real in-process servers (server/reco_server.h) on
// 127.0.0.1:0. Short, bounded windows; figures are checked for consistency and
// against the servers' own stats, never for speed.
#include "client/load_run.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/call_flags.h"
#include "client/machine_cpu.h"
#include "client/report/report_renderers.h"
#include "client/request_set.h"
#include "core/byte_buffer_bytes.h"
#include "core/catalogue.h"
#include "core/message_store.h"
#include "core/response_builder.h"
#include "google/protobuf/io/coded_stream.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/reco_server.h"

namespace reco {
namespace {

std::unique_ptr<RecoServer> StartServer(MemoryMode mode) {
  ServerOptions o;
  o.listen = "127.0.0.1:0";
  o.mode = ServingModeFor(mode);
  absl::StatusOr<std::unique_ptr<RecoServer>> s = RecoServer::Start(o);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

TargetSpec SpecFor(const char* name, const RecoServer& s) { return {name, "127.0.0.1:" + std::to_string(s.port())}; }

LoadOptions ShortRun() {
  LoadOptions o;
  o.warmup = absl::Milliseconds(300);
  o.duration = absl::Milliseconds(1000);
  o.rounds = 2;
  o.concurrency = 4;
  o.connections = 2;
  o.items = 50;
  o.probe_deadline = absl::Seconds(5);
  return o;
}

void ExpectOrderedPercentiles(const LatencyHistogram& h) {
  EXPECT_GT(h.count(), 0u);
  EXPECT_LE(h.Percentile(50), h.Percentile(90));
  EXPECT_LE(h.Percentile(90), h.Percentile(99));
  EXPECT_LE(h.Percentile(99), h.Percentile(99.9));
  EXPECT_LE(h.Percentile(99.9), h.max());
  EXPECT_GT(h.Percentile(50), 0u);
}

// A ceiling server ignores the request's content. reco_load recognizes it by its
// ServerStats mode (whatever the target is named), sends it only its first request,
// and so still checks every reply without counting the ceiling as wrong.
TEST(ClientLoadRun, CeilingTargetIsCheckedAgainstItsOneRequestAndGivesTheShare) {
  std::unique_ptr<RecoServer> heap = StartServer(MemoryMode::kHeap);
  ServerOptions c;
  c.listen = "127.0.0.1:0";
  c.mode = ServingMode::kCeiling;
  LoadOptions o = ShortRun();
  c.ceiling_request.set_user_id("load-user-0");  // reco_load's first request
  c.ceiling_request.set_item_count(o.items);
  c.ceiling_request.set_text_profile(o.profile);
  c.ceiling_request.set_seed(o.seed);
  absl::StatusOr<std::unique_ptr<RecoServer>> ceiling = RecoServer::Start(c);
  ASSERT_TRUE(heap && ceiling.ok()) << ceiling.status();
  o.targets = {SpecFor("heap", *heap), SpecFor("top", **ceiling)};
  o.variants = 4;
  o.verify_every = 1;  // compare every reply byte for byte
  o.rounds = 1;
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const TargetResult& top = report->targets[1];
  EXPECT_EQ(top.server.mode, "ceiling");
  EXPECT_GT(top.client.ok, 0u);
  EXPECT_EQ(top.client.verified, top.client.ok);
  EXPECT_EQ(top.client.errors(), 0u);
  EXPECT_EQ(report->CeilingIndex(), 1);
  ASSERT_TRUE(report->QpsShareOfCeiling(0).has_value());
  EXPECT_GT(*report->QpsShareOfCeiling(0), 0.0);
  EXPECT_DOUBLE_EQ(*report->QpsShareOfCeiling(1), 1.0);
  bool told = false;
  for (const std::string& w : report->warnings) told |= w.find("top: a ceiling server") == 0;
  EXPECT_TRUE(told);

  // A ceiling built for another request fails the probe, before any load.
  c.ceiling_request.set_item_count(o.items + 1);
  absl::StatusOr<std::unique_ptr<RecoServer>> wrong = RecoServer::Start(c);
  ASSERT_TRUE(wrong.ok());
  o.targets = {SpecFor("ceiling", **wrong)};
  absl::StatusOr<RunReport> refused = RunLoad(o, "test", nullptr);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss) << refused.status();
}

TEST(ClientLoadRun, ClosedLoopAgainstRealServersMatchesTheirOwnStats) {
  std::unique_ptr<RecoServer> heap = StartServer(MemoryMode::kHeap);
  std::unique_ptr<RecoServer> pool = StartServer(MemoryMode::kArenaPool);
  ASSERT_TRUE(heap && pool);
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("heap", *heap), SpecFor("arena_pool", *pool)};
  // One request variant: every RPC is identical, so per-RPC server figures are exact.
  o.variants = 1;
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->targets.size(), 2u);

  RecoServer* servers[] = {heap.get(), pool.get()};
  for (int i = 0; i < 2; ++i) {
    const TargetResult& t = report->targets[i];
    SCOPED_TRACE(t.spec.name);
    ASSERT_EQ(t.rounds.size(), 2u);
    EXPECT_GT(t.client.qps(), 0);
    EXPECT_EQ(t.client.errors(), 0u);
    EXPECT_EQ(t.client.ok, t.client.completed);
    EXPECT_GT(t.client.verified, 0u);
    ExpectOrderedPercentiles(t.client.latency);

    // The server side: the report's windows against the server's own totals.
    ASSERT_TRUE(t.server.available) << t.server.note;
    v1::StatsSnapshot own = servers[i]->Stats(/*reset=*/false);
    EXPECT_EQ(t.server.mode, own.mode());
    EXPECT_GT(t.server.rpcs, 0u);
    EXPECT_LE(t.server.rpcs, own.rpcs());
    // Each window's RPCs are near what the client counted in it (the edges differ
    // by at most the requests in flight, plus the snapshot calls' own timing).
    for (const RoundResult& r : t.rounds) {
      EXPECT_NEAR(static_cast<double>(r.server.rpcs), static_cast<double>(r.client.ok),
                  0.2 * static_cast<double>(r.client.ok) + 2 * o.concurrency);
    }
    const double own_build_per_rpc = static_cast<double>(own.build().allocations().allocs()) / own.rpcs();
    const double build_per_rpc = t.server.PerRpc(t.server.build.allocations.allocs);
    // Identical RPCs make identical allocations; only the server's first RPCs (pools
    // filling) differ, and they are diluted in its totals.
    EXPECT_NEAR(build_per_rpc, own_build_per_rpc, 0.01 * own_build_per_rpc + 0.5);
    EXPECT_NEAR(t.server.PerRpc(t.server.release.allocations.frees),
                static_cast<double>(own.release().allocations().frees()) / own.rpcs(),
                0.01 * static_cast<double>(own.release().allocations().frees()) / own.rpcs() + 0.5);
    EXPECT_GT(t.server.PerRpc(t.server.process.allocs), build_per_rpc);
    EXPECT_GT(t.server.cpu_user_seconds + t.server.cpu_system_seconds, 0);
    EXPECT_GT(t.server.rss_bytes, 0u);

    // The noise guard: each window has the machine's busy CPU, and the other
    // processes' share is known (the server is here, inside this process). Its
    // value depends on whatever else runs on the machine: only its range is checked.
    for (const RoundResult& r : t.rounds) {
      EXPECT_EQ(r.machine.windows, 1);
      EXPECT_GT(r.machine.seconds, 0);
      if (!std::ifstream("/proc/stat")) continue;
      ASSERT_TRUE(r.machine.busy_cpu_seconds.has_value());
      ASSERT_TRUE(r.machine.OtherShare().has_value());
      EXPECT_GE(*r.machine.OtherShare(), 0.0);
      EXPECT_LE(*r.machine.OtherShare(), 1.0);
    }
    EXPECT_EQ(t.machine.windows, 2);

    if (i == 0) {
      // The heap mode has no pools: every identical RPC makes exactly the same
      // allocations, so the window's figure and the server's lifetime figure are
      // the same whole number.
      EXPECT_DOUBLE_EQ(build_per_rpc, own_build_per_rpc);
      EXPECT_DOUBLE_EQ(build_per_rpc, static_cast<double>(static_cast<uint64_t>(build_per_rpc)));
      EXPECT_GT(build_per_rpc, 100);
    }
  }
  // The heap allocates several times what the pooled arena does to build a response.
  EXPECT_GT(report->targets[0].server.PerRpc(report->targets[0].server.build.allocations.allocs),
            2 * report->targets[1].server.PerRpc(report->targets[1].server.build.allocations.allocs));
}

// --total: each round's window is exactly `total` calls, every one answered; the
// server's own window (its snapshots) holds exactly those, the warm-up's calls having
// completed before it opened; and the server answered nothing else but the probes
// (one per connection) and the warm-ups.
TEST(ClientLoadRun, CountedWindowSendsExactlyTotalCallsPerRound) {
  std::unique_ptr<RecoServer> pool = StartServer(MemoryMode::kArenaPool);
  ASSERT_TRUE(pool);
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("arena_pool", *pool)};
  o.warmup = absl::Milliseconds(200);
  o.total = 37;  // not a multiple of the slots or threads
  o.rounds = 3;
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const TargetResult& t = report->targets[0];
  for (const RoundResult& r : t.rounds) {
    EXPECT_EQ(r.client.sent, 37u);
    EXPECT_EQ(r.client.completed, 37u);
    EXPECT_EQ(r.client.ok, 37u);
    EXPECT_GT(r.client.seconds, 0);
    ASSERT_TRUE(r.server.available) << r.server.note;
    EXPECT_EQ(r.server.rpcs, 37u);
  }
}

// A generic run (--call) against reco_server's own method: no reply is checked but
// by its status, the requests are the user's bytes cycled through, and the server
// side is read as for any target serving ServerStats.
TEST(ClientLoadRun, GenericCallDrivesAnyMethodWithTheGivenRequests) {
  std::unique_ptr<RecoServer> pool = StartServer(MemoryMode::kArenaPool);
  ASSERT_TRUE(pool);
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("arena_pool", *pool)};
  o.warmup = absl::ZeroDuration();
  o.total = 40;
  o.rounds = 2;
  v1::RecommendRequest small, large;
  small.set_item_count(10);
  large.set_item_count(30);
  o.call = {kRecommendMethod,
            "reco.v1.RecommendRequest",
            "reco.v1.RecommendResponse",
            {small.SerializeAsString(), large.SerializeAsString()}};
  o.metadata = {{"x-test", "1"}};
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const TargetResult& t = report->targets[0];
  EXPECT_EQ(t.client.ok, 80u);
  EXPECT_EQ(t.client.errors(), 0u);
  EXPECT_EQ(t.client.verified, 0u);  // nothing to compare a reply with
  ASSERT_TRUE(t.server.available) << t.server.note;
  // Half the calls asked for 10 items, half for 30: the server built 20 on average.
  const v1::StatsSnapshot own = pool->Stats(/*reset=*/false);
  EXPECT_EQ(own.rpcs(), 80u + o.connections);
  const double reply_bytes = static_cast<double>(t.client.response_bytes) / t.client.ok;
  EXPECT_NEAR(reply_bytes,
              (BuildResponseBytes(*Catalogue::Shared({}), small).size() +
               BuildResponseBytes(*Catalogue::Shared({}), large).size()) /
                  2.0,
              1.0);
}

// --compression gzip: every request compressed. reco_server refuses them by default
// (UNIMPLEMENTED at their headers) and serves them with accept_compressed_requests.
TEST(ClientLoadRun, CompressedRequestsAreRefusedOrServedAsTheServerSays) {
  for (bool accept : {false, true}) {
    ServerOptions so;
    so.listen = "127.0.0.1:0";
    so.mode = ServingModeFor(MemoryMode::kHeap);
    so.connection.accept_compressed_requests = accept;
    absl::StatusOr<std::unique_ptr<RecoServer>> server = RecoServer::Start(so);
    ASSERT_TRUE(server.ok()) << server.status();
    LoadOptions o = ShortRun();
    o.targets = {SpecFor("heap", **server)};
    o.warmup = absl::ZeroDuration();
    o.total = 20;
    o.rounds = 1;
    o.max_error_rate = 1;
    o.compression = GRPC_COMPRESS_GZIP;
    absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
    ASSERT_TRUE(report.ok()) << report.status();
    const ClientFigures& c = report->targets[0].client;
    EXPECT_EQ(c.ok, accept ? 20u : 0u);
    EXPECT_EQ(c.errors_by_code[static_cast<int>(grpc::StatusCode::UNIMPLEMENTED)], accept ? 0u : 20u);
  }
}

// A server-streaming method of any service (here a generic one that answers every
// request with kMessages messages of 100 bytes): reco_load writes the request,
// half-closes, reads until the stream ends, and counts the messages and the time to
// the first.
class CountingStreamService final : public grpc::CallbackGenericService {
 public:
  static constexpr int kMessages = 5;
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    class Reactor final : public grpc::ServerGenericBidiReactor {
     public:
      Reactor() { StartRead(&request_); }
      void OnReadDone(bool ok) override {
        if (!ok) return Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request"));
        Next();
      }
      void OnWriteDone(bool ok) override {
        if (!ok) return Finish(grpc::Status::CANCELLED);
        Next();
      }
      void OnDone() override { delete this; }

     private:
      void Next() {
        if (sent_ == kMessages) return Finish(grpc::Status::OK);
        ++sent_;
        grpc::Slice slice(std::string(100, 'm'));
        message_ = grpc::ByteBuffer(&slice, 1);
        StartWrite(&message_);
      }
      grpc::ByteBuffer request_, message_;
      int sent_ = 0;
    };
    return new Reactor;
  }
};

// A server of `service` listening on `address` (port 0: a free one, into *port).
std::unique_ptr<grpc::Server> StartGenericServer(grpc::CallbackGenericService* service, const std::string& address,
                                                 int* port = nullptr) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), port);
  builder.RegisterCallbackGenericService(service);
  return builder.BuildAndStart();
}

// A generic service on 127.0.0.1 (a free port), shut down when it goes out of scope
// (before the service it serves, declared first).
struct LoopbackServer {
  explicit LoopbackServer(grpc::CallbackGenericService* service)
      : server(StartGenericServer(service, "127.0.0.1:0", &port)) {}
  ~LoopbackServer() {
    if (server != nullptr) server->Shutdown();
  }
  int port = 0;
  std::unique_ptr<grpc::Server> server;
};

// A run of CountingStreamService's method on `target`: `total` calls a round.
LoadOptions StreamingRun(TargetSpec target, int total, int rounds) {
  LoadOptions o = ShortRun();
  o.targets = {std::move(target)};
  o.warmup = absl::ZeroDuration();
  o.total = total;
  o.rounds = rounds;
  o.call = {"/test.Stream/Count", "test.Request", "test.Message", {"x"}};
  o.call.server_streaming = true;
  return o;
}

TEST(ClientLoadRun, AServerStreamingMethodIsDrivenMessageByMessage) {
  CountingStreamService service;
  LoopbackServer loopback(&service);
  ASSERT_NE(loopback.server, nullptr);
  const int port = loopback.port;
  LoadOptions o = StreamingRun({"stream", absl::StrCat("127.0.0.1:", port)}, 30, 2);
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const ClientFigures& c = report->targets[0].client;
  EXPECT_EQ(c.ok, 60u);
  EXPECT_EQ(c.errors(), 0u);
  EXPECT_TRUE(c.streaming);
  EXPECT_EQ(c.messages, 60u * CountingStreamService::kMessages);
  EXPECT_EQ(c.response_bytes, 60u * CountingStreamService::kMessages * 100);
  EXPECT_EQ(c.first_message.count(), 60u);
  EXPECT_LE(c.first_message.Percentile(50), c.latency.Percentile(50)) << "the first message comes before the end";
  const std::string table = RenderTable(*report);
  EXPECT_NE(table.find("\nmessages/call "), std::string::npos) << table;
  EXPECT_NE(table.find("p99 first message (ms)"), std::string::npos) << table;
}

// A client-streaming method ("/test.Stream/Collect": one reply, the call's messages'
// bytes joined) and two bidirectional ones ("/test.Stream/Echo": each message sent
// back as it comes; "/test.Stream/Lockstep": the same, but the next message is read
// only once the last echo is written), wanting kMessages messages a call
// (kLockstepMessages for Lockstep): a call with another count fails
// INVALID_ARGUMENT. `received` counts their messages; other methods are
// UNIMPLEMENTED.
class StreamUpService final : public grpc::CallbackGenericService {
 public:
  static constexpr int kMessages = 3;
  static constexpr int kLockstepMessages = 24;
  std::atomic<int64_t> received{0};

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* ctx) override {
    const std::string& method = ctx->method();
    if (method == "/test.Stream/Lockstep") return new Reactor(this, true, kLockstepMessages);
    if (method != "/test.Stream/Echo" && method != "/test.Stream/Collect") {
      class Unknown final : public grpc::ServerGenericBidiReactor {  // reco_load's ServerStats, say
       public:
        Unknown() { Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "")); }
        void OnDone() override { delete this; }
      };
      return new Unknown;
    }
    return new Reactor(this, method == "/test.Stream/Echo", kMessages, false);
  }

 private:
  class Reactor final : public grpc::ServerGenericBidiReactor {
   public:
    Reactor(StreamUpService* service, bool echo, int want, bool read_after_echo = true)
        : service_(service), echo_(echo), want_(want), lockstep_(read_after_echo && echo) {
      StartRead(&in_);
    }
    void OnReadDone(bool ok) override {
      std::lock_guard<std::mutex> lock(mu_);
      if (!ok) {
        reads_done_ = true;
        return Next();
      }
      ++service_->received;
      ++count_;
      const std::string bytes = ByteBufferBytes(in_);
      if (echo_) {
        queue_.push_back(bytes);
      } else {
        joined_ += bytes;
      }
      if (lockstep_) {
        read_after_write_ = true;
      } else {
        StartRead(&in_);
      }
      Next();
    }
    void OnWriteDone(bool ok) override {
      std::lock_guard<std::mutex> lock(mu_);
      writing_ = false;
      if (!ok) return End(grpc::Status::CANCELLED);
      if (read_after_write_ && queue_.empty()) {
        read_after_write_ = false;
        StartRead(&in_);
      }
      Next();
    }
    void OnDone() override { delete this; }

   private:
    // Writes what is queued, one at a time; once the client's messages have ended,
    // Collect's one reply, then the status.
    void Next() {
      if (ended_ || writing_) return;
      if (queue_.empty() && reads_done_ && !echo_ && !replied_ && count_ == want_) {
        replied_ = true;
        queue_.push_back(joined_);
      }
      if (!queue_.empty()) {
        grpc::Slice slice(queue_.front());
        queue_.pop_front();
        out_ = grpc::ByteBuffer(&slice, 1);
        writing_ = true;
        return StartWrite(&out_);
      }
      if (!reads_done_) return;
      End(count_ == want_ ? grpc::Status::OK
                          : grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, absl::StrCat(count_, " messages")));
    }
    void End(const grpc::Status& status) {
      if (ended_) return;
      ended_ = true;
      Finish(status);
    }
    StreamUpService* const service_;
    const bool echo_;
    const int want_;
    const bool lockstep_;
    bool read_after_write_ = false;
    std::mutex mu_;
    grpc::ByteBuffer in_, out_;
    std::deque<std::string> queue_;
    std::string joined_;
    int count_ = 0;
    bool reads_done_ = false, writing_ = false, replied_ = false, ended_ = false;
  };
};

// `total` calls a round of StreamUpService's `method`, each sending "a", "bb", "ccc".
LoadOptions StreamUpRun(int port, const std::string& method, bool server_streaming, int total) {
  LoadOptions o = StreamingRun({"up", absl::StrCat("127.0.0.1:", port)}, total, 2);
  std::string call;
  for (const char* m : {"a", "bb", "ccc"}) call += std::string(1, static_cast<char>(std::strlen(m))) + m;
  o.call = {method, "test.Request", "test.Message", {call}};
  o.call.client_streaming = true;
  o.call.server_streaming = server_streaming;
  return o;
}

// Collect (client streaming: one reply a call) and Echo (bidirectional: a message
// back for each): a call that missed a message, or got them out of order, fails.
TEST(ClientLoadRun, ClientAndBidirectionalStreamsSendEveryMessageOfEachCall) {
  StreamUpService service;
  LoopbackServer loopback(&service);
  ASSERT_NE(loopback.server, nullptr);
  const int port = loopback.port;
  for (bool echo : {false, true}) {
    SCOPED_TRACE(echo ? "Echo" : "Collect");
    absl::StatusOr<RunReport> report =
        RunLoad(StreamUpRun(port, echo ? "/test.Stream/Echo" : "/test.Stream/Collect", echo, 40), "test", nullptr);
    ASSERT_TRUE(report.ok()) << report.status();
    const ClientFigures& c = report->targets[0].client;
    EXPECT_EQ(c.ok, 80u);
    EXPECT_EQ(c.errors(), 0u);
    EXPECT_EQ(c.response_bytes, 80u * 6) << "a, bb and ccc: joined, or echoed one by one";
    EXPECT_EQ(c.streaming, echo) << "messages per call only for a stream of replies";
    if (echo) {
      EXPECT_EQ(c.messages, 80u * StreamUpService::kMessages);
      EXPECT_EQ(c.first_message.count(), 80u);
    }
  }
  EXPECT_EQ(service.received.load() % StreamUpService::kMessages, 0);
  EXPECT_GE(service.received.load(), 160 * StreamUpService::kMessages);
}

// A server that reads a call's next message only once it has written the echo of
// the last: a client that wrote all its messages before reading any would fill both
// directions' flow-control windows with 24 MiB each way and wait for its deadline.
TEST(ClientLoadRun, ABidirectionalCallReadsWhileItWrites) {
  StreamUpService service;
  LoopbackServer loopback(&service);
  ASSERT_NE(loopback.server, nullptr);
  const int port = loopback.port;
  LoadOptions o = StreamUpRun(port, "/test.Stream/Lockstep", true, 2);
  o.rounds = 1;
  std::string call;
  const std::string mib(1 << 20, 'm');
  for (int i = 0; i < StreamUpService::kLockstepMessages; ++i) {
    uint8_t length[5];
    const uint8_t* end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(mib.size(), length);
    call.append(reinterpret_cast<const char*>(length), end - length).append(mib);
  }
  o.call.requests = {call};
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const ClientFigures& c = report->targets[0].client;
  EXPECT_EQ(c.errors(), 0u) << "a call waited for its deadline";
  EXPECT_EQ(c.ok, 2u);
  EXPECT_EQ(c.messages, 2u * StreamUpService::kLockstepMessages);
}

// --call of a client-streaming method from a .proto: --data's array is each call's
// messages, its placeholders rendered per call ({{.RequestNumber}}: 0, 1, ...).
TEST(ClientLoadRun, ACallFlagStreamSendsTheArrayWithItsPlaceholdersPerCall) {
  StreamUpService service;
  LoopbackServer loopback(&service);
  ASSERT_NE(loopback.server, nullptr);
  const int port = loopback.port;
  const std::string proto = ::testing::TempDir() + "/stream_up.proto";
  std::ofstream(proto) << "syntax = \"proto3\";\npackage test;\nmessage Request { string text = 1; }\n"
                          "service Stream { rpc Collect(stream Request) returns (Request); }\n";
  LoadOptions o = StreamingRun({"up", absl::StrCat("127.0.0.1:", port)}, 40, 2);
  CallFlags flags;
  flags.call = "test.Stream/Collect";
  flags.proto_files = {proto};
  flags.data.json = R"([{"text": "a"}, {"text": "bb"}, {"text": "{{.RequestNumber}}"}])";
  absl::StatusOr<CallSpec> call = ResolveCall(flags, o);
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_TRUE(call->client_streaming);
  EXPECT_FALSE(call->server_streaming);
  o.call = *std::move(call);
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const ClientFigures& c = report->targets[0].client;
  EXPECT_EQ(c.ok, 80u);
  // Each reply joins the call's three messages: "a" (3 bytes), "bb" (4) and the
  // call's number (2 + its digits): calls 0-9 one digit, 10-79 two.
  EXPECT_EQ(c.response_bytes, 80u * (3 + 4 + 2) + 10 * 1 + 70 * 2);
}

// A target on a unix socket (--target NAME=unix:PATH): driven as any other, and on
// this machine for the noise guard.
TEST(ClientLoadRun, AUnixSocketTargetIsDriven) {
  const std::string path = ::testing::TempDir() + "/reco_load_test.sock";
  std::remove(path.c_str());
  CountingStreamService service;
  std::unique_ptr<grpc::Server> server = StartGenericServer(&service, "unix:" + path);
  ASSERT_NE(server, nullptr);
  absl::StatusOr<TargetSpec> spec = ParseTargetSpec("local=unix:" + path);
  ASSERT_TRUE(spec.ok()) << spec.status();
  LoadOptions o = StreamingRun(*spec, 10, 1);
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->targets[0].client.ok, 10u);
  EXPECT_TRUE(IsLoopbackTarget(spec->address));
  server->Shutdown();
  std::remove(path.c_str());
}

// --run_timeout caps the whole run: with 400 ms windows and a 1 s cap, a third round
// could not start before 0.8 s nor end before 1.2 s, so at most two of five run; the
// report keeps them and says why it stopped.
TEST(ClientLoadRun, RunTimeoutStopsBeforeARoundThatWouldPassIt) {
  std::unique_ptr<RecoServer> server = StartServer(MemoryMode::kHeap);
  ASSERT_TRUE(server);
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("heap", *server)};
  o.warmup = absl::ZeroDuration();
  o.duration = absl::Milliseconds(400);
  o.rounds = 5;
  o.run_timeout = absl::Seconds(1);
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const size_t done = report->targets[0].rounds.size();
  EXPECT_GE(done, 1u);
  EXPECT_LE(done, 2u);
  const std::string want = absl::StrCat("stopped after round ", done, " of 5: another round (");
  EXPECT_TRUE(std::any_of(report->warnings.begin(), report->warnings.end(), [&](const std::string& w) {
    return absl::StartsWith(w, want);
  })) << want;
}

// A generic run of a method the server does not have fails at the probe, naming it.
TEST(ClientLoadRun, GenericCallOfAnUnservedMethodFailsTheProbe) {
  std::unique_ptr<RecoServer> server = StartServer(MemoryMode::kHeap);
  ASSERT_TRUE(server);
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("heap", *server)};
  o.call = {"/inbox.v1.Inbox/ListThreads", "inbox.v1.ListThreadsRequest", "inbox.v1.ThreadPage", {""}};
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnimplemented) << report.status();
  EXPECT_NE(report.status().message().find("/inbox.v1.Inbox/ListThreads"), std::string::npos) << report.status();
  EXPECT_EQ(server->Stats(false).rpcs(), 0u);
}

// A server whose catalogue is not the default: reco_load reads {seed 9, 500 items}
// from its stats and checks every reply against that catalogue. 600 items asked, 500
// held: each reply carries the whole catalogue, and the count check must know it.
TEST(ClientLoadRun, NonDefaultCatalogueIsVerifiedAgainstTheCatalogueTheServerReports) {
  ServerOptions s;
  s.listen = "127.0.0.1:0";
  s.mode = ServingMode::kArenaPool;
  s.catalogue = {/*seed=*/9, /*items_per_profile=*/500};
  absl::StatusOr<std::unique_ptr<RecoServer>> server = RecoServer::Start(s);
  ASSERT_TRUE(server.ok()) << server.status();
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("catalogue_9_500", **server)};
  o.rounds = 1;
  o.items = 600;
  o.verify_every = 1;  // every reply byte for byte
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const ClientFigures& c = report->targets[0].client;
  EXPECT_GT(c.ok, 0u);
  EXPECT_EQ(c.ok, c.completed);
  EXPECT_EQ(c.verified, c.ok);
  EXPECT_EQ(c.wrong_item_count, 0u);
  EXPECT_EQ(c.wrong_content, 0u);
  EXPECT_EQ(c.errors(), 0u);
}

TEST(ClientLoadRun, OpenLoopSendsAtTheAskedRateAndReportsLag) {
  std::unique_ptr<RecoServer> server = StartServer(MemoryMode::kArena);
  ASSERT_TRUE(server);
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("arena", *server)};
  o.rounds = 1;
  o.rate = 200;
  o.duration = absl::Seconds(2);
  o.concurrency = 32;
  o.items = 10;
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const ClientFigures& c = report->targets[0].client;
  // 200 req/s over 2 s: 400 requests are due in the window; count them, not time them.
  EXPECT_NEAR(static_cast<double>(c.scheduled), 400, 1);
  EXPECT_NEAR(static_cast<double>(c.sent), 400, 0.03 * 400);
  EXPECT_EQ(c.unsent, 0u);
  EXPECT_EQ(c.errors(), 0u);
  EXPECT_EQ(c.schedule_lag.count(), c.scheduled);
  ExpectOrderedPercentiles(c.latency);
  // Timed from the schedule, a request is never faster than timed from its send.
  EXPECT_EQ(c.latency.count(), c.latency_uncorrected.count());
  EXPECT_GE(c.latency.mean(), c.latency_uncorrected.mean());
  EXPECT_GE(c.latency.max(), c.latency_uncorrected.max());
}

TEST(ClientLoadRun, OpenLoopThatFallsBehindSaysSo) {
  std::unique_ptr<RecoServer> server = StartServer(MemoryMode::kHeap);
  ASSERT_TRUE(server);
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("heap", *server)};
  o.rounds = 1;
  o.warmup = absl::ZeroDuration();
  o.duration = absl::Milliseconds(500);
  // One request in flight at a time cannot carry 20,000 of them per second.
  o.rate = 20000;
  o.concurrency = 1;
  o.items = 1000;
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const ClientFigures& c = report->targets[0].client;
  EXPECT_EQ(c.scheduled, 10000u);
  EXPECT_GT(c.unsent, 0u);
  EXPECT_GT(c.schedule_lag.max(), 10'000'000u);
  ASSERT_FALSE(report->warnings.empty());
  EXPECT_NE(report->warnings[0].find("fell behind its schedule"), std::string::npos) << report->warnings[0];
}

TEST(ClientLoadRun, UnreachableTargetFailsBeforeAnyLoad) {
  std::unique_ptr<RecoServer> server = StartServer(MemoryMode::kHeap);
  ASSERT_TRUE(server);
  const int closed_port = [] {
    auto probe = StartServer(MemoryMode::kHeap);  // a port that was free, now closed again
    int port = probe->port();
    probe->Shutdown(absl::ZeroDuration());
    probe->Wait();
    return port;
  }();
  LoadOptions o = ShortRun();
  o.targets = {SpecFor("heap", *server), {"gone", "127.0.0.1:" + std::to_string(closed_port)}};
  o.probe_deadline = absl::Seconds(2);
  absl::StatusOr<RunReport> report = RunLoad(o, "test", nullptr);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(report.status().message().find("gone"), std::string::npos) << report.status();
  EXPECT_NE(report.status().message().find("unreachable"), std::string::npos) << report.status();
  // The reachable target saw only the probe: one Recommend per connection.
  EXPECT_EQ(server->Stats(false).rpcs(), static_cast<uint64_t>(o.connections));
}

}  // namespace
}  // namespace reco
