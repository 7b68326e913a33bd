// Hostile-client test support: an in-process RecoServer per memory mode, a client
// that sends arbitrary bytes as a Recommend request, and the check every hostile
// test ends with -- the server is still whole.
//
// "Whole" means, once the server has had time to finish what the hostile client left
// behind (gRPC releases a call's messages after the call is over, on its own threads):
//   - the store has every lease back: in_use == 0, acquired == released in the
//     window, and no more than max_idle leases parked (heap mode has no store: gRPC
//     owns its messages, and only LeakSanitizer can judge it);
//   - the reply budget has every reservation back (in_use_bytes == 0);
//   - a correct request still gets exactly BuildResponse's bytes.
// Leaks are LeakSanitizer's to find: run these tests in the ASan build
// (scripts/sanitize.sh asan -R hostile).
//
// Example:
//   auto server = reco::hostile::StartServer(reco::MemoryMode::kArenaPool);
//   auto channel = reco::hostile::ChannelTo(*server);
//   auto reply = reco::hostile::CallBytes(channel.get(), "\xff\xff", absl::Seconds(5));
//   EXPECT_EQ(reply.status.error_code(), grpc::StatusCode::INTERNAL);
//   reco::hostile::ExpectWhole(*server, channel.get());
//
// Thread-safety: CallBytes from any thread; ExpectWhole from the test's thread.
#ifndef ARENA_GRPC_TESTS_HOSTILE_HOSTILE_SERVER_H_
#define ARENA_GRPC_TESTS_HOSTILE_HOSTILE_SERVER_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "absl/time/time.h"
#include "core/message_store.h"
#include "proto/reco.pb.h"
#include "server/reco_server.h"
#include "server/server_test_util.h"

namespace reco::hostile {

// The store's pool bound in these servers; ExpectWhole checks idle against it.
inline constexpr size_t kMaxIdle = 16;

// A server in `mode` on 127.0.0.1:0 with the production limits (64 KiB requests,
// 256 streams per connection); null (and a test failure) if it cannot start.
std::unique_ptr<RecoServer> StartServer(MemoryMode mode);

// A channel that accepts replies of any size (a 10,000-item response is ~5 MB).
std::shared_ptr<grpc::Channel> ChannelTo(const RecoServer& server);

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

// Waits (up to 20 s: sanitizer builds are slow) for the server to settle, then
// asserts it is whole (see the top of this file). `after` names what came before,
// for the failure message.
void ExpectWhole(RecoServer& server, grpc::Channel* channel, const std::string& after);

}  // namespace reco::hostile

#endif  // ARENA_GRPC_TESTS_HOSTILE_HOSTILE_SERVER_H_
