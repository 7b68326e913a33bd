// ConnectionLimits: what reco_server's transport lets a client hold and send --
// connection lifetime (idle, age, handshake), keepalive enforcement, and the request
// encodings it accepts -- plus the checks on the listening address and the start-up
// raise of the open-files limit. Every limit is on by default with a safe value; each
// is a reco_server flag (docs/server.md, "Connections").
//
// Example:
//   reco::ConnectionLimits limits;               // the defaults below
//   limits.max_connection_idle = absl::Seconds(1);
//   if (absl::Status s = reco::CheckConnectionLimits(limits); !s.ok()) ...;
//   grpc::ServerBuilder builder;
//   reco::ApplyConnectionLimits(limits, &builder);  // channel args, compression set
//
// Thread-safety: plain values and free functions; RaiseOpenFileLimit() changes a
// process-wide limit: call it once, from main, before serving.
#ifndef ARENA_GRPC_SERVER_CONNECTION_LIMITS_H_
#define ARENA_GRPC_SERVER_CONNECTION_LIMITS_H_

#include <cstdint>
#include <string>

#include <grpcpp/server_builder.h>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace reco {

struct ConnectionLimits {
  // A connection with no call for this long gets GOAWAY and is closed (gRPC's
  // max_connection_idle; its default is infinite: an idle client held a socket forever).
  absl::Duration max_connection_idle = absl::Minutes(10);
  // Every connection gets GOAWAY after this long (+-10 % jitter, gRPC's), so clients
  // re-resolve and rebalance; its calls then have max_connection_age_grace to finish
  // before the connection is closed.
  absl::Duration max_connection_age = absl::Minutes(30);
  absl::Duration max_connection_age_grace = absl::Minutes(1);
  // A connection must finish its HTTP/2 (or TLS) handshake within this (gRPC's
  // default is 120 s: a client that opens sockets and says nothing held them that
  // long). On the insecure port: the HTTP/2 preface must arrive (connection_acceptor.h).
  absl::Duration handshake_timeout = absl::Seconds(5);
  // Insecure port: a new connection is closed at once when the process holds this
  // many descriptors or more (connection_acceptor.h). 0: the open-files limit minus
  // kReservedDescriptors, so the server's own files never run out first.
  int64_t max_connections = 0;
  // Insecure port: the memory the calls gRPC holds may take, whether or not their
  // message ever comes. gRPC takes kStreamCostBytes or so for every open stream before
  // any handler runs, and refuses none under max_concurrent_streams per connection,
  // so the server holds at most StreamBoundConnections() connections: a new one past
  // them is closed at once, as at max_connections (ResolveConnectionCaps()).
  int64_t stream_memory_bytes = int64_t{512} << 20;
  // Insecure port: a new connection is closed at once while its source address has
  // this many open (connection_acceptor.h), so one host cannot take the whole cap;
  // behind a proxy, all its clients are one source. 0: no limit;
  // kPerSourceQuarterOfCap: a quarter of the smaller cap (ResolveConnectionCaps()).
  int64_t max_connections_per_source = -1;
  // The server pings a connection that has been quiet this long and closes it when
  // no answer comes within keepalive_timeout: a vanished peer frees its socket.
  absl::Duration keepalive_time = absl::Minutes(2);
  absl::Duration keepalive_timeout = absl::Seconds(20);
  // Keepalive enforcement: a client pinging more often than this without data gets a
  // strike; after max_ping_strikes strikes, GOAWAY(ENHANCE_YOUR_CALM) and close.
  absl::Duration min_recv_ping_interval = absl::Minutes(1);
  int max_ping_strikes = 2;
  // Requests must be identity-encoded unless this is true: a compressed request is
  // inflated by gRPC BEFORE max_receive_message_bytes is checked (a small gzip request
  // grew far past it: docs/server.md), so by default gzip/deflate requests get
  // UNIMPLEMENTED at their headers. true accepts gzip and deflate (not a bomb-proof setting).
  bool accept_compressed_requests = false;
};

// The smallest grpc::ResourceQuota (ServerOptions::resource_quota_bytes, when not 0)
// we accept. With gRPC 1.51 a quota of a few KiB failed every call (UNAVAILABLE,
// "GOAWAY received": the connection is closed for want of memory); this one leaves a
// wide margin over the smallest that served a 10,000-item call (docs/server.md, "Flags").
inline constexpr int64_t kMinResourceQuotaBytes = 1 << 20;

// What gRPC 1.51 holds for one open stream whose message never comes: the larger of
// tests/hostile/held_streams.py's measurements (usual headers, and headers at gRPC's
// metadata limit), rounded up; the figures are in docs/server.md, "Held streams".
inline constexpr int64_t kStreamCostBytes = 20 << 10;
// What a connection takes beyond its streams, measured the same way with one stream
// per connection (behind the edge, edge/reco_server.flags), rounded up.
inline constexpr int64_t kConnectionCostBytes = 20 << 10;
// max_connections_per_source's default: a quarter of the connection cap.
inline constexpr int64_t kPerSourceQuarterOfCap = -1;

// The insecure port's caps as applied (connection_acceptor.h), each 0 for none.
struct ConnectionCaps {
  int64_t descriptors;  // max_connections, or DefaultMaxConnections() for 0
  // stream_memory_bytes / (kConnectionCostBytes + max_concurrent_streams x kStreamCostBytes), at least 1
  int64_t connections;
  int64_t per_source;  // max_connections_per_source, or a quarter of the smaller cap (at least 1)
};
ConnectionCaps ResolveConnectionCaps(const ConnectionLimits& limits, int max_concurrent_streams);
// One line for the log: the caps and the flags that set them.
std::string DescribeConnectionCaps(const ConnectionCaps& caps, const ConnectionLimits& limits,
                                   int max_concurrent_streams);

// Descriptors max_connections = 0 keeps for the server itself: its files, gRPC's
// pipes and event descriptors, /proc reads for its stats.
inline constexpr int64_t kReservedDescriptors = 64;
// max_connections when 0: the open-files limit (RLIMIT_NOFILE, as raised at start)
// less kReservedDescriptors, and at least half of it.
int64_t DefaultMaxConnections();

// Each duration positive and within a day; ping strikes 0..1000 (0: gRPC's "no
// limit"); age grace and handshake no longer than a day. The message names the field.
absl::Status CheckConnectionLimits(const ConnectionLimits& limits);

// Sets the channel arguments and the accepted compression algorithms on `builder`.
void ApplyConnectionLimits(const ConnectionLimits& limits, grpc::ServerBuilder* builder);

// Raises the soft RLIMIT_NOFILE to the hard limit (each connection is a descriptor;
// Debian's soft default of 1024 caps the server at ~1,000 clients). Returns one line
// for the log: "open files limit raised from 1024 to 1048576", or why not.
std::string RaiseOpenFileLimit();

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_CONNECTION_LIMITS_H_
