// server_call_fuzz: arbitrary calls -- method path, metadata, call shape and message
// bytes -- to real in-process servers, one per serving mode, over loopback.
//
// Input layout (every byte of it is the fuzzer's):
//   byte 0   which server: heap, reuse, arena, arena_pool, fragments, ceiling
//   byte 1   the call's shape: unary, or a stream with 0, 1 or 2 messages
//   then     the method path, up to the first '\n'
//   then     metadata lines "key:value" up to an empty line
//   the rest the message
// The path is sent as it is, so most inputs call paths the server does not serve:
// the class of call that aborted the server (issue 20). Metadata keys are what a gRPC
// client lets a caller add (lowercase, not reserved; the raw HTTP/2 tests in
// tests/hostile send the rest). A Recommend request asking for more than 40 items is
// cut to 40, as in request_handler_fuzz: the item loop is the same for item 50 as
// for item 5,000, and a 10,000-item build under ASan takes a large part of a second.
//
// What must hold for every input:
//   - no crash, no sanitizer report in our code (the servers run in this process);
//   - the call ends with a status before its deadline: never DEADLINE_EXCEEDED or
//     UNAVAILABLE (a server that stopped answering);
//   - a path the servers do not serve is answered UNIMPLEMENTED (or refused by the
//     client library before it was sent: INTERNAL);
//   - afterwards the same server answers a correct Recommend with the exact bytes.
//
// Run it with scripts/fuzz.sh; seeds in fuzz/corpus/server_call_fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/byte_buffer_bytes.h"
#include "core/response_builder.h"
#include "fuzz/fuzzed_servers.h"
#include "google/protobuf/stubs/logging.h"
#include "proto/reco.pb.h"
#include "server/ceiling_service.h"
#include "server/reco_server.h"

namespace {

constexpr uint32_t kMaxFuzzItems = 40;
constexpr size_t kMaxMetadata = 8;
// Generous: a sanitizer build on a busy 2-core machine; only a bound on hangs.
constexpr absl::Duration kDeadline = absl::Seconds(30);
constexpr char kRecommend[] = "/reco.v1.Recommender/Recommend";
constexpr const char* kServedPaths[] = {
    kRecommend,
    "/reco.v1.ServerStats/GetStats",
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
};

void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "server_call_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

struct Servers {
  std::vector<std::string> modes;
  std::vector<std::unique_ptr<reco::RecoServer>> all;
  std::vector<std::shared_ptr<grpc::Channel>> channels;

  Servers() {
    modes = reco::fuzz::FuzzedServerModes();
    for (const std::string& mode : modes) {
      reco::ServerOptions options;
      options.listen = "127.0.0.1:0";
      if (!reco::ParseServingMode(mode, &options.mode)) Fail("not a serving mode", mode);
      options.catalogue.items_per_profile = 1000;  // replies copy from it: size does not matter here
      options.store.max_idle = 4;
      options.ceiling_request = reco::DefaultCeilingRequest();
      auto server = reco::RecoServer::Start(options);
      if (!server.ok()) Fail("server did not start", server.status().ToString());
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(-1);
      channels.push_back(grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", (*server)->port()),
                                                   grpc::InsecureChannelCredentials(), args));
      all.push_back(*std::move(server));
    }
  }
};

// The input, taken apart (see the top of the file).
struct Call {
  size_t server = 0;
  int shape = 0;  // 0 unary; 1, 2, 3: a stream with shape - 1 messages
  std::string path;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string message;
};

// What a caller may add as metadata through a gRPC client.
bool ClientMayAdd(absl::string_view key, absl::string_view value) {
  if (key.empty() || absl::StartsWith(key, "grpc-") || key == "te" || key == "content-type" || key == "user-agent" ||
      key == "host") {
    return false;
  }
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) return false;
  }
  // Binary values are base64'd by gRPC -- but only under a key longer than "-bin"
  // itself: gRPC 1.51 takes "-bin" alone for a text key (grpc_key_is_binary_header
  // wants 5 bytes or more), and a client adding it a binary value asserts.
  if (key.size() > 4 && absl::EndsWith(key, "-bin")) return true;
  for (char c : value) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

Call Parse(const uint8_t* data, size_t size, size_t servers) {
  Call call;
  if (size < 2) return call;
  call.server = data[0] % servers;
  call.shape = data[1] % 4;
  absl::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  size_t eol = rest.find('\n');
  call.path = std::string(rest.substr(0, eol));
  rest = eol == absl::string_view::npos ? absl::string_view() : rest.substr(eol + 1);
  while (!rest.empty()) {
    eol = rest.find('\n');
    absl::string_view line = rest.substr(0, eol);
    rest = eol == absl::string_view::npos ? absl::string_view() : rest.substr(eol + 1);
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos || call.metadata.size() == kMaxMetadata) continue;
    absl::string_view key = line.substr(0, colon), value = line.substr(colon + 1);
    if (ClientMayAdd(key, value)) call.metadata.emplace_back(std::string(key), std::string(value));
  }
  call.message = std::string(rest);
  reco::v1::RecommendRequest request;
  if (call.path == kRecommend && request.ParseFromString(call.message) &&
      reco::EffectiveItemCount(request) > kMaxFuzzItems) {
    request.set_item_count(1 + request.item_count() % kMaxFuzzItems);
    call.message = request.SerializeAsString();
  }
  return call;
}

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// One call as `call` says, waited for; returns its status.
grpc::Status Send(grpc::Channel* channel, const Call& call) {
  grpc::GenericStub stub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kDeadline));
  for (const auto& [key, value] : call.metadata) context.AddMetadata(key, value);
  grpc::CompletionQueue cq;
  auto wait = [&cq] {
    void* tag = nullptr;
    bool ok = false;
    return cq.Next(&tag, &ok) && ok;
  };
  grpc::Status status;
  if (call.shape == 0) {
    auto reader = stub.PrepareUnaryCall(&context, call.path, Buffer(call.message), &cq);
    reader->StartCall();
    grpc::ByteBuffer reply;
    reader->Finish(&reply, &status, nullptr);
    wait();
  } else {
    auto stream = stub.PrepareCall(&context, call.path, &cq);
    stream->StartCall(nullptr);
    bool open = wait();
    for (int i = 0; open && i < call.shape - 1; ++i) {
      stream->Write(Buffer(call.message), nullptr);
      open = wait();
    }
    if (open) {
      stream->WritesDone(nullptr);
      wait();
    }
    grpc::ByteBuffer reply;
    do stream->Read(&reply, nullptr);
    while (wait());
    stream->Finish(&status, nullptr);
    wait();
  }
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

// Whether the server serves the path the call went out with. gRPC's C++ client takes
// the method as a C string (RpcMethod keeps its c_str()), so a path is sent only up to
// its first NUL: "/reco.v1.Recommender/Recommend\0x" reaches Recommend.
bool Served(const std::string& path) {
  const std::string sent = path.substr(0, path.find('\0'));
  for (const char* served : kServedPaths) {
    if (sent == served) return true;
  }
  return false;
}

// A correct Recommend still gets the exact bytes.
void ExpectServing(grpc::Channel* channel, const std::string& mode, const std::string& after) {
  reco::v1::RecommendRequest probe;
  probe.set_user_id("fuzz-probe");
  probe.set_item_count(3);
  probe.set_text_profile(reco::v1::TEXT_PROFILE_COMPACT);
  grpc::GenericStub stub(std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kDeadline));
  grpc::CompletionQueue cq;
  auto reader = stub.PrepareUnaryCall(&context, kRecommend, Buffer(probe.SerializeAsString()), &cq);
  reader->StartCall();
  grpc::ByteBuffer reply;
  grpc::Status status;
  reader->Finish(&reply, &status, nullptr);
  void* tag = nullptr;
  bool ok = false;
  cq.Next(&tag, &ok);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  if (!status.ok())
    Fail("the server no longer serves Recommend", absl::StrCat(mode, " after ", after, ": ", status.error_message()));
  if (!reply.Valid()) Fail("reply unreadable", mode);
  const std::string expected = reco::BuildResponseBytes(*reco::Catalogue::Shared({1, 1000}),
                                                        mode == "ceiling" ? reco::DefaultCeilingRequest() : probe);
  if (reco::ByteBufferBytes(reply) != expected) Fail("wrong reply bytes", absl::StrCat(mode, " after ", after));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The servers live for the whole run, as a server lives through its clients.
  static Servers* servers = new Servers;
  const Call call = Parse(data, size, servers->all.size());
  const std::string& mode = servers->modes[call.server];
  grpc::Channel* channel = servers->channels[call.server].get();
  grpc::Status status = Send(channel, call);
  const std::string what = absl::StrCat("path \"", absl::CHexEscape(call.path.substr(0, 80)), "\" shape ", call.shape);
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
      status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    Fail("the server did not answer", absl::StrCat(mode, " ", what, ": ", status.error_message()));
  }
  if (!Served(call.path) && status.error_code() != grpc::StatusCode::UNIMPLEMENTED &&
      status.error_code() != grpc::StatusCode::INTERNAL) {
    Fail("an unserved path was not answered UNIMPLEMENTED",
         absl::StrCat(mode, " ", what, ": code ", status.error_code(), " ", status.error_message()));
  }
  ExpectServing(channel, mode, what);
  return 0;
}
