// Helpers for the server tests: an in-process RecoServer on 127.0.0.1:0 and a
// client that returns the reply's raw wire bytes, so tests can compare bytes.
#ifndef ARENA_GRPC_SERVER_TESTING_SERVER_TEST_UTIL_H_
#define ARENA_GRPC_SERVER_TESTING_SERVER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/time/time.h"
#include "proto/reco.grpc.pb.h"
#include "proto/stats.grpc.pb.h"
#include "server/reco_server.h"

namespace reco::testing {

// The serving threads of a test server under --api async: two, so that calls are
// served on more than one queue whatever the machine.
constexpr int kTestAsyncThreads = 2;

// Starts a server in `mode` on 127.0.0.1:0, through `api` (kTestAsyncThreads for
// async); fails the test (and returns null) if it cannot. A MemoryMode starts the
// serving mode that copies the catalogue's items in it (ServingModeFor).
std::unique_ptr<RecoServer> StartTestServer(ServingMode mode, bool measure = true,
                                            ServingApi api = ServingApi::kCallback);
std::unique_ptr<RecoServer> StartTestServer(MemoryMode mode, bool measure = true,
                                            ServingApi api = ServingApi::kCallback);

// The serving modes that build a reply message: the four memory modes, then
// arena_alias (arena_pool's store, the catalogue's sub-messages aliased).
std::vector<ServingMode> MessageServingModes();

// The store's leases in use when a server in `mode` through `api` is at rest: 0 for
// callback; under async one per serving thread (each keeps one call armed, with its
// messages) except heap, which has no store.
uint64_t RestingLeases(MemoryMode mode, ServingApi api);
uint64_t RestingLeases(ServingMode mode, ServingApi api);  // a message serving mode

std::shared_ptr<grpc::Channel> ChannelTo(const RecoServer& server);

struct RawReply {
  grpc::Status status;
  std::string bytes;  // the reply message exactly as it came over the wire
};
// One Recommend call through a generic stub, within `deadline` (generous: only a
// bound on hangs, since sanitizer builds run many times slower).
// The same with the request's bytes as given: valid protobuf or not.
RawReply CallRawBytes(grpc::Channel* channel, const std::string& request_bytes, absl::Duration deadline);
RawReply CallRaw(grpc::Channel* channel, const v1::RecommendRequest& request,
                 absl::Duration deadline = absl::Seconds(60));

v1::RecommendRequest MakeRequest(uint32_t items, v1::TextProfile profile, uint64_t seed = 1);

// What the server must answer: BuildResponse's message, serialized.
std::string ExpectedBytes(const v1::RecommendRequest& request);

// Polls the server until its store has every lease back (in_use == resting_leases,
// see RestingLeases) and, if release_count is given, the release histogram holds that
// many samples; false after `timeout`. gRPC releases a call's messages after the
// client has its reply.
bool WaitForReleases(RecoServer& server, absl::Duration timeout, uint64_t release_count = 0,
                     uint64_t resting_leases = 0);

}  // namespace reco::testing

#endif  // ARENA_GRPC_SERVER_TESTING_SERVER_TEST_UTIL_H_
