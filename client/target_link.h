// TargetLink: the channels to one target, and the two control calls made on them
// outside the load -- the reachability probe and the ServerStats snapshot.
//
// Each of the `connections` channels gets a distinct channel argument and a local
// subchannel pool, so gRPC opens one HTTP/2 connection per channel instead of
// sharing a single subchannel among them. Replies up to max_receive_bytes are accepted
// (a 10,000-item realistic response is over gRPC's 4 MB default: hostile_limits_test).
//
// With TlsDial{ca_pem, server_name}, every channel speaks TLS (grpc::SslCredentials);
// a failed handshake shows in Probe as UNAVAILABLE "unreachable ... TLS ...".
//
// Replicas: a target with several backends (or a dns:/// address) is dialled as one
// gRPC target ("ipv4:A,B,...") with the service config of `lb_policy`, so gRPC
// spreads the load channels' calls. A snapshot through a load channel would reach
// one backend at random, so the link also opens one stats channel PER BACKEND
// address (a dns:/// name is resolved here with getaddrinfo; when that fails the
// stats go through the load channel and replica_note() says so). A single
// HOST:PORT target has one replica whose stats channel is the first load channel.
//
// Example:
//   reco::TargetLink link({"heap", "127.0.0.1:50051"}, /*connections=*/2, /*lookahead_bytes=*/0,
//                         /*max_receive_bytes=*/64 << 20);
//   absl::Status up = link.Probe(requests, absl::Seconds(3));   // before any load
//   absl::StatusOr<reco::v1::StatsSnapshot> s = link.Snapshot(absl::Seconds(3));
//
// Thread-safety: channels and stubs are thread-safe (gRPC's); Probe and Snapshot may
// be called from any thread. The link must outlive every call made on its channels.
#ifndef ARENA_GRPC_CLIENT_TARGET_LINK_H_
#define ARENA_GRPC_CLIENT_TARGET_LINK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/load_options.h"
#include "client/request_set.h"
#include "grpcpp/channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "proto/stats.grpc.pb.h"

namespace reco {

// How to dial: insecure when ca_pem is empty, else TLS trusting ca_pem's roots and
// checking server_name (or, empty, the target's host) against the certificate.
// cert_chain_pem and private_key_pem, when given, are the client's certificate
// (mutual TLS).
struct TlsDial {
  std::string ca_pem;
  std::string server_name;
  std::string cert_chain_pem;
  std::string private_key_pem;
  bool skip_verify = false;  // TLS, the server's certificate not checked
  bool on() const { return !ca_pem.empty() || skip_verify; }
};

// The TLS settings of a run's options.
TlsDial TlsDialOf(const LoadOptions& options);

class TargetLink {
 public:
  // lookahead_bytes: GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 0 for gRPC's default.
  // max_receive_bytes: the largest reply a call may receive.
  // lb_policy: "round_robin" or "pick_first", used only for several backends or dns:///.
  TargetLink(TargetSpec spec, int connections, int lookahead_bytes, int max_receive_bytes, TlsDial tls = {},
             const std::string& lb_policy = "round_robin");

  const TargetSpec& spec() const { return spec_; }
  // The backends whose figures are read one by one ("HOST:PORT" each), and why there
  // is only the load channel's when a dns:/// name could not be resolved here.
  int replicas() const { return static_cast<int>(replicas_.size()); }
  const std::string& replica_address(int i) const { return replicas_[i].address; }
  const std::string& replica_note() const { return replica_note_; }
  int connections() const { return static_cast<int>(channels_.size()); }
  grpc::GenericStub& stub(int i) { return *stubs_[i % stubs_.size()]; }
  grpc::Channel& channel(int i) { return *channels_[i % channels_.size()]; }

  // Connects every channel and sends the set's first request on each (with
  // `metadata`), within `deadline` in all; then the same on every replica's own
  // channel, so that each backend is known to answer (a balanced load channel would
  // reach only one of them). Checks the first answer byte for byte (Recommend only).
  // UNAVAILABLE (unreachable), or the RPC's status, or DATA_LOSS (a wrong answer),
  // with a message naming the target, the backend and the method.
  absl::Status Probe(const RequestSet& requests, absl::Duration deadline, const CallMetadata& metadata = {});

  // One ServerStats snapshot (without reset) of replica `replica`. UNIMPLEMENTED when
  // the target has no stats service.
  absl::StatusOr<v1::StatsSnapshot> Snapshot(absl::Duration deadline, int replica = 0);

 private:
  struct Replica {
    std::string address;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    std::unique_ptr<v1::ServerStats::Stub> stats;
  };
  absl::Status ProbeChannel(grpc::Channel& channel, grpc::GenericStub& stub, const std::string& who,
                            const RequestSet& requests, const CallMetadata& metadata, absl::Duration deadline,
                            absl::Time until, bool check_bytes);

  TargetSpec spec_;
  bool tls_ = false;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs_;
  std::vector<Replica> replicas_;
  // Replicas with channels of their own (false: replicas_[0] reads through channels_[0]).
  bool own_replica_channels_ = false;
  std::string replica_note_;
};

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_TARGET_LINK_H_
