// SPDX-License-Identifier: Apache-2.0
// sync_reply_bench: CPU per call of the options a synchronous handler has for its
// reply (see sync_arena_reply.h), in paired, interleaved rounds. Not a test; built on
// demand (EXCLUDE_FROM_ALL) and run by sync_reply_bench.sh, which also runs it under
// other mallocs.
//
//   (a) heap:   the typed sync API -- build straight into gRPC's response;
//   (b) copy:   build on a pooled arena, then response->CopyFrom(built);
//   (c) arena:  sync_arena_reply.h -- raw method, pooled arena, one slice, Reset;
//   (r) reused: raw method, a reused heap message of the thread's (Clear(), build).
//
// --mode=work: one call's reply work on this thread, as gRPC's sync unary handler
//   does it: parse the request's bytes, the handler, gRPC's serialization of what the
//   handler gave it, the destruction of all of it. Thread CPU time per call.
// --mode=server: a real in-process sync server per option on 127.0.0.1:0 and one
//   client calling it in turn (raw bytes: the client parses nothing). Process CPU
//   time per call: server and client.
// Each round runs every option for --iters calls, in an order rotated every round; a
// round's ratio is an option's time over (a)'s in the same round. Bounded: rounds x
// options x iters calls, each with a 30 s deadline.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "feed.grpc.pb.h"
#include "sync_arena_reply.h"
#include "testing/feed_builder.h"

ABSL_FLAG(std::string, mode, "work", "work: the reply work alone; server: calls to an in-process sync server");
ABSL_FLAG(int, posts, 200, "posts per reply");
ABSL_FLAG(bool, long_text, false, "every string over 15 bytes (one malloc each, even on an arena)");
ABSL_FLAG(int, rounds, 15, "paired rounds");
ABSL_FLAG(int, iters, 300, "calls per option per round");
ABSL_FLAG(std::string, options, "a,b,c,r", "options to run, (a) first: ratios are against it");

namespace reco::patterns {
namespace {

using feed::v1::FeedRequest;
using feed::v1::FeedResponse;

int64_t CpuNanos(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

grpc::ByteBuffer BufferOf(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// --- The handlers -----------------------------------------------------------------------

// (c): the header's example.
grpc::Status ArenaHandler(SyncArenaReplies& replies, const grpc::ByteBuffer& request_bytes,
                          grpc::ByteBuffer* reply_bytes) {
  SyncArenaReplies::Call call = replies.Begin();
  auto* request = call.Create<FeedRequest>();
  grpc::Status status = ParseRawRequest(request_bytes, request);
  if (!status.ok()) return status;
  auto* reply = call.Create<FeedResponse>();
  testing::FillFeed(*request, reply);
  return call.Serialize(*reply, reply_bytes);
}

// (r)
grpc::Status ReusedHandler(const grpc::ByteBuffer& request_bytes, grpc::ByteBuffer* reply_bytes) {
  thread_local FeedResponse reused;
  FeedRequest request;
  grpc::Status status = ParseRawRequest(request_bytes, &request);
  if (!status.ok()) return status;
  reused.Clear();
  testing::FillFeed(request, &reused);
  return SerializeToOneSlice(reused, reply_bytes);
}

// (b)
void CopyHandler(SyncArenaReplies& replies, const FeedRequest& request, FeedResponse* response) {
  SyncArenaReplies::Call call = replies.Begin();
  auto* built = call.Create<FeedResponse>();
  testing::FillFeed(request, built);
  response->CopyFrom(*built);
}

// --- --mode=work --------------------------------------------------------------------------

// One call's reply work; returns the bytes sent (kept from being optimized away).
size_t WorkCall(char option, SyncArenaReplies& replies, const grpc::ByteBuffer& request_bytes) {
  bool own = false;
  grpc::ByteBuffer sent;
  if (option == 'a' || option == 'b') {
    FeedRequest request;  // gRPC parses a typed request before the handler
    if (!ParseRawRequest(request_bytes, &request).ok()) std::abort();
    FeedResponse response;  // gRPC's per-call response
    if (option == 'a') {
      testing::FillFeed(request, &response);
    } else {
      CopyHandler(replies, request, &response);
    }
    if (!grpc::SerializationTraits<FeedResponse>::Serialize(response, &sent, &own).ok()) std::abort();
  } else {
    grpc::ByteBuffer response;  // gRPC's per-call response bytes
    grpc::Status status =
        option == 'c' ? ArenaHandler(replies, request_bytes, &response) : ReusedHandler(request_bytes, &response);
    if (!status.ok()) std::abort();
    if (!grpc::SerializationTraits<grpc::ByteBuffer>::Serialize(response, &sent, &own).ok()) std::abort();
  }
  return sent.Length();  // gRPC destroys both after sending: here, at return
}

// --- --mode=server ------------------------------------------------------------------------

class HeapFeed final : public feed::v1::Feed::Service {
  grpc::Status GetFeed(grpc::ServerContext*, const FeedRequest* request, FeedResponse* response) override {
    testing::FillFeed(*request, response);
    return grpc::Status::OK;
  }
};
class CopiedFeed final : public feed::v1::Feed::Service {
  grpc::Status GetFeed(grpc::ServerContext*, const FeedRequest* request, FeedResponse* response) override {
    CopyHandler(replies_, *request, response);
    return grpc::Status::OK;
  }
  SyncArenaReplies replies_;
};
class ArenaFeed final : public SyncRawService {
 public:
  ArenaFeed() {
    AddUnary("/feed.v1.Feed/GetFeed", [this](grpc::ServerContext*, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) {
      return ArenaHandler(replies_, *in, out);
    });
  }

 private:
  SyncArenaReplies replies_;
};
class ReusedFeed final : public SyncRawService {
 public:
  ReusedFeed() {
    AddUnary("/feed.v1.Feed/GetFeed", [](grpc::ServerContext*, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) {
      return ReusedHandler(*in, out);
    });
  }
};

struct Target {
  std::unique_ptr<grpc::Service> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<grpc::GenericStub> stub;
};

Target Serve(char option) {
  Target t;
  if (option == 'a') t.service = std::make_unique<HeapFeed>();
  if (option == 'b') t.service = std::make_unique<CopiedFeed>();
  if (option == 'c') t.service = std::make_unique<ArenaFeed>();
  if (option == 'r') t.service = std::make_unique<ReusedFeed>();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(t.service.get());
  t.server = builder.BuildAndStart();
  if (t.server == nullptr) std::abort();
  t.stub = std::make_unique<grpc::GenericStub>(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  return t;
}

size_t ServerCall(Target& target, const grpc::ByteBuffer& request_bytes) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::CompletionQueue cq;
  auto call = target.stub->PrepareUnaryCall(&context, "/feed.v1.Feed/GetFeed", request_bytes, &cq);
  call->StartCall();
  grpc::ByteBuffer reply;
  grpc::Status status;
  call->Finish(&reply, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  if (!cq.Next(&tag, &ok) || !ok || !status.ok()) {
    std::fprintf(stderr, "call failed: %s\n", status.error_message().c_str());
    std::abort();
  }
  return reply.Length();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Each option's median CPU per call, and its ratio to option a's, round r against
// round r: median [min-max]. ns[option][round].
void PrintSummary(const std::vector<char>& options, const std::vector<std::vector<double>>& ns) {
  const size_t rounds = ns[0].size();
  std::printf("option  median ns/call  ratio vs (a): median [min-max] over %zu rounds\n", rounds);
  for (size_t i = 0; i < options.size(); ++i) {
    std::vector<double> ratio;
    for (size_t r = 0; r < rounds; ++r) ratio.push_back(ns[i][r] / ns[0][r]);
    std::printf("%c       %9.0f        x%.2f [%.2f-%.2f]\n", options[i], Median(ns[i]), Median(ratio),
                *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
  }
}

int Main() {
  const std::string mode = absl::GetFlag(FLAGS_mode);
  std::vector<char> options;
  for (char c : absl::GetFlag(FLAGS_options)) {
    if (c != ',') options.push_back(c);
  }
  if (options.empty() || options[0] != 'a') {
    std::fprintf(stderr, "--options must start with a\n");
    return 2;
  }
  const int rounds = absl::GetFlag(FLAGS_rounds), iters = absl::GetFlag(FLAGS_iters);
  FeedRequest request;
  request.set_user_id("user-7");
  request.set_post_count(static_cast<uint32_t>(absl::GetFlag(FLAGS_posts)));
  request.set_long_text(absl::GetFlag(FLAGS_long_text));
  const grpc::ByteBuffer request_bytes = BufferOf(request.SerializeAsString());
  FeedResponse expected;
  testing::FillFeed(request, &expected);
  const size_t expected_bytes = expected.ByteSizeLong();

  SyncArenaReplies replies;
  std::vector<Target> targets(options.size());
  if (mode == "server") {
    for (size_t i = 0; i < options.size(); ++i) targets[i] = Serve(options[i]);
  } else if (mode != "work") {
    std::fprintf(stderr, "--mode is work or server\n");
    return 2;
  }
  const clockid_t clock = mode == "work" ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID;
  auto run = [&](size_t i, int calls) {
    for (int k = 0; k < calls; ++k) {
      const size_t sent =
          mode == "work" ? WorkCall(options[i], replies, request_bytes) : ServerCall(targets[i], request_bytes);
      if (sent != expected_bytes) std::abort();
    }
  };
  for (size_t i = 0; i < options.size(); ++i) run(i, std::max(10, iters / 10));  // warm-up

  std::printf("mode=%s posts=%d long_text=%d rounds=%d iters=%d\n", mode.c_str(), absl::GetFlag(FLAGS_posts),
              absl::GetFlag(FLAGS_long_text) ? 1 : 0, rounds, iters);
  std::vector<std::vector<double>> ns(options.size());  // per option, per round: CPU ns per call
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < options.size(); ++k) {
      const size_t i = (k + static_cast<size_t>(r)) % options.size();  // rotated order
      const int64_t start = CpuNanos(clock);
      run(i, iters);
      ns[i].push_back(static_cast<double>(CpuNanos(clock) - start) / iters);
    }
    std::printf("round %d:", r);
    for (size_t i = 0; i < options.size(); ++i) std::printf(" %c=%.0f", options[i], ns[i].back());
    std::printf(" (ns/call)\n");
  }
  PrintSummary(options, ns);
  for (Target& t : targets) {
    if (t.server) t.server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(10));
  }
  return 0;
}

}  // namespace
}  // namespace reco::patterns

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return reco::patterns::Main();
}
