// Hostile-client test support: an in-process RecoServer per request-serving mode (the
// four memory modes and fragments: RequestServingModes()), a client that sends
// arbitrary bytes as a Recommend request, and the check every hostile test ends
// with -- the server is still whole.
//
// "Whole" means, once the server has had time to finish what the hostile client left
// behind (gRPC releases a call's messages after the call is over, on its own threads):
//   - the store has every lease back: in_use == 0, acquired == released in the
//     window (plus, under the async API, the armed calls' leases: RestingLeases), and
//     no more than max_idle leases parked. heap and fragments have no store
//     (StatsSnapshot.store absent: gRPC owns heap's messages, fragments builds none),
//     which is checked too; their memory only LeakSanitizer can judge;
//   - the reply budget has every reservation back (in_use_bytes == 0);
//   - a correct request still gets exactly BuildResponse's bytes.
// Leaks are LeakSanitizer's to find: run these tests in the ASan build
// (scripts/sanitize.sh asan -R hostile).
//
// Example:
//   auto server = reco::hostile::StartServer("arena_pool");
//   auto channel = reco::hostile::ChannelTo(*server);
//   auto reply = reco::hostile::CallBytes(channel.get(), "\xff\xff", absl::Seconds(5));
//   EXPECT_EQ(reply.status.error_code(), reco::hostile::NotARequestCode("arena_pool"));
//   reco::hostile::ExpectWhole(*server, channel.get());
//
// Thread-safety: CallBytes from any thread; ExpectWhole from the test's thread.
#ifndef ARENA_GRPC_TESTS_HOSTILE_HOSTILE_SERVER_H_
#define ARENA_GRPC_TESTS_HOSTILE_HOSTILE_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/time/time.h"
#include "core/message_store.h"
#include "proto/reco.pb.h"
#include "server/reco_server.h"
#include "server/testing/server_test_util.h"

namespace reco::hostile {

// The store's pool bound in these servers; ExpectWhole checks idle against it.
inline constexpr size_t kMaxIdle = 16;

// A mode name with this suffix ("arena_pool_async") is that mode served through the
// async API (reco_server --api async, kAsyncThreads serving threads); without it,
// the callback API.
inline constexpr char kAsyncSuffix[] = "_async";
inline constexpr int kAsyncThreads = 2;
// RequestServingModes(), then each of them through the async API (arena_alias and
// fragments included): the parameters of the tests that attack every request-serving
// mode and API.
std::vector<std::string> ModesAndApis();
// arena_pool and fragments (a reply built as a message, and one spliced from bytes),
// each on both APIs: for what every mode reaches by the same code (gRPC's header
// handling, CallReservations), where only the API and the reply's kind differ.
std::vector<std::string> DifferingModesAndApis();
// `options` set to serve in `mode`, one of RequestServingModes() (ParseServingMode),
// optionally with kAsyncSuffix; a test failure for any other name.
void SetServingMode(const std::string& mode, ServerOptions* options);

// Whether a server in `mode` keeps its messages in a MessageStore: reuse, arena and
// arena_pool do; heap (gRPC's own messages) and fragments (no messages) do not.
bool HasStore(const std::string& mode);

// Whether gRPC parses the request before the handler runs (the message modes), or
// the handler parses it itself from a raw ByteBuffer (fragments).
bool HasGrpcParser(const std::string& mode);
// What a server in `mode` answers to bytes that are not a RecommendRequest. Where gRPC
// parses (HasGrpcParser), 1.51's callback API answers UNIMPLEMENTED with an empty
// message (grpcpp/impl/codegen/server_callback_handlers.h, CallbackUnaryHandler::
// RunHandler): not what a user would guess, so the tests pin it -- a gRPC upgrade that
// changes it shows up. fragments answers INVALID_ARGUMENT naming the message type.
// The async API (kAsyncSuffix) answers INTERNAL "Unable to parse request" and keeps
// the call it had armed for the next request (grpcpp/impl/codegen/server_interface.h,
// PayloadAsyncRequest::FinalizeResult).
grpc::StatusCode NotARequestCode(const std::string& mode);

// The test name of a serving-mode parameter: the mode's name ("arena_pool").
// INSTANTIATE_TEST_SUITE_P(Modes, T, ::testing::ValuesIn(RequestServingModes()), ModeName).
std::string ModeName(const ::testing::TestParamInfo<std::string>& info);

// A server in `mode` (see SetServingMode) on 127.0.0.1:0 with the production limits
// (64 KiB requests, 256 streams per connection); null (and a test failure) if it
// cannot start.
std::unique_ptr<RecoServer> StartServer(const std::string& mode);

// The store leases `server` keeps at rest: under the async API one armed call per
// serving thread holds its messages; 0 otherwise and without a store.
uint64_t RestingLeases(const RecoServer& server);
// A channel that accepts replies of any size (a 10,000-item response is ~5 MB).
std::shared_ptr<grpc::Channel> ChannelTo(const RecoServer& server);

// The two kinds of port a server listens on: insecure (the project's own acceptor)
// and TLS (gRPC's listener).
enum class PortKind { kInsecure, kTls };
// "insecure" or "tls", for test names.
std::string PortKindName(PortKind kind);

// A self-signed certificate for localhost and 127.0.0.1, made once per process with
// openssl in a temporary directory (no key is committed); empty strings and a test
// failure when openssl fails.
struct TestCertificate {
  std::string cert_pem;
  std::string key_pem;
  std::string cert_file;  // the certificate as a file, for raw_http2_client.py
};
const TestCertificate& Certificate();

// Like StartServer, but on either kind of port, and `mode` may also be "ceiling"
// (whose fixed reply is DefaultCeilingRequest()'s, ceiling_service.h).
std::unique_ptr<RecoServer> StartServerOn(const std::string& mode, PortKind kind);
// A channel to a server started by StartServerOn with the same kind (TLS: trusting
// Certificate(), checking the name localhost).
std::shared_ptr<grpc::Channel> ChannelTo(const RecoServer& server, PortKind kind);

// Any method by name, as a stream: writes each of `messages`, half-closes, reads
// every reply until the server ends the call. What a gRPC client sends for a
// streaming method (server reflection), or sends by mistake to a unary one.
struct StreamReply {
  grpc::Status status;
  int writes_accepted = 0;  // messages the transport took before the call ended
  int replies = 0;          // messages the server sent back
};
StreamReply CallStream(grpc::Channel* channel, const std::string& method, const std::vector<std::string>& messages,
                       absl::Duration deadline);

// status, and the reply message as it came over the wire (OK only).
using Reply = ::reco::testing::RawReply;
// Sends `request_bytes` as a Recommend request, valid protobuf or not.
Reply CallBytes(grpc::Channel* channel, const std::string& request_bytes, absl::Duration deadline);

v1::RecommendRequest Request(uint32_t items, v1::TextProfile profile, uint64_t seed = 1);
// BuildResponse's message for `request`, serialized: what a correct server sends.
std::string ExpectedBytes(const v1::RecommendRequest& request);

// Runs raw_http2_client.py (python3-h2) against 127.0.0.1:port with `args` (its case
// and the case's arguments) and returns its JSON report; an empty object when it
// printed nothing, a test failure when it exited non-zero.
nlohmann::json RunRawHttp2Client(int port, const std::string& args);
// The same over either kind of port (TLS: RAW_HTTP2_TLS_CA=Certificate().cert_file).
nlohmann::json RunRawHttp2Client(int port, const std::string& args, PortKind kind);

// Waits (up to 20 s: sanitizer builds are slow) for the server to settle, then
// asserts it is whole (see the top of this file). `after` names what came before,
// for the failure message.
void ExpectWhole(RecoServer& server, grpc::Channel* channel, const std::string& after);

}  // namespace reco::hostile

#endif  // ARENA_GRPC_TESTS_HOSTILE_HOSTILE_SERVER_H_
