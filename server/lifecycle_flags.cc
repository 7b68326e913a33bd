// See lifecycle_flags.h. Defaults come from the structs, so flags and in-process
// servers agree.
#include "server/lifecycle_flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

namespace {
const reco::ConnectionLimits kLimits;
const reco::DrainOptions kDrain;
}  // namespace

ABSL_FLAG(absl::Duration, max_connection_idle, kLimits.max_connection_idle,
          "a connection with no call for this long gets GOAWAY and is closed");
ABSL_FLAG(absl::Duration, max_connection_age, kLimits.max_connection_age,
          "every connection gets GOAWAY after this long (+-10% jitter), so clients rebalance");
ABSL_FLAG(absl::Duration, max_connection_age_grace, kLimits.max_connection_age_grace,
          "after max_connection_age, how long its calls may still run before the connection is closed");
ABSL_FLAG(absl::Duration, handshake_timeout, kLimits.handshake_timeout,
          "a new connection must finish its HTTP/2 (and TLS) handshake within this; on the insecure port, send "
          "its HTTP/2 preface");
ABSL_FLAG(int64_t, max_connections, kLimits.max_connections,
          "insecure port: new connections are closed at once (with a log line) while the process holds this many "
          "descriptors; 0: the open-files limit minus 64");
ABSL_FLAG(int64_t, stream_memory_bytes, kLimits.stream_memory_bytes,
          "insecure port: the memory the streams gRPC holds may take (about 20 KiB each before any handler runs): "
          "at most this / (20 KiB + max_concurrent_streams x 20 KiB) connections are held, new ones past it "
          "closed at once");
ABSL_FLAG(int64_t, max_connections_per_source, kLimits.max_connections_per_source,
          "insecure port: new connections from an address holding this many open are closed at once (with a log "
          "line); behind a proxy all its clients are one address; 0: no limit; -1: a quarter of the connection cap");
ABSL_FLAG(absl::Duration, keepalive_time, kLimits.keepalive_time,
          "the server pings a connection with calls that has been quiet this long");
ABSL_FLAG(absl::Duration, keepalive_timeout, kLimits.keepalive_timeout,
          "a connection that does not answer the server's ping within this is closed");
ABSL_FLAG(absl::Duration, keepalive_min_ping_interval, kLimits.min_recv_ping_interval,
          "a client pinging more often than this without data gets a strike");
ABSL_FLAG(int64_t, keepalive_max_ping_strikes, kLimits.max_ping_strikes,
          "strikes before GOAWAY(ENHANCE_YOUR_CALM) and close; 0: no limit");
ABSL_FLAG(bool, accept_compressed_requests, kLimits.accept_compressed_requests,
          "accept gzip/deflate requests (false: identity only; gRPC inflates a compressed request before "
          "checking --max_receive_message_bytes, so a 1 MB gzip request can become 1 GB)");
ABSL_FLAG(absl::Duration, shutdown_drain_delay, kDrain.drain_delay,
          "on SIGTERM/SIGINT, how long health says NOT_SERVING while calls are still served, before gRPC's "
          "shutdown (which would cancel calls it received but had not started)");
ABSL_FLAG(absl::Duration, shutdown_hard_deadline, kDrain.hard_deadline,
          "from SIGTERM/SIGINT, the bound on the whole stop: past it the server exits with status 3 and a line "
          "on stderr (replies stuck behind a client's flow control can hold gRPC's shutdown)");

namespace reco {

absl::StatusOr<ConnectionLimits> ConnectionLimitsFromFlags() {
  ConnectionLimits l;
  l.max_connection_idle = absl::GetFlag(FLAGS_max_connection_idle);
  l.max_connection_age = absl::GetFlag(FLAGS_max_connection_age);
  l.max_connection_age_grace = absl::GetFlag(FLAGS_max_connection_age_grace);
  l.handshake_timeout = absl::GetFlag(FLAGS_handshake_timeout);
  l.max_connections = absl::GetFlag(FLAGS_max_connections);
  l.max_connections_per_source = absl::GetFlag(FLAGS_max_connections_per_source);
  l.stream_memory_bytes = absl::GetFlag(FLAGS_stream_memory_bytes);
  l.keepalive_time = absl::GetFlag(FLAGS_keepalive_time);
  l.keepalive_timeout = absl::GetFlag(FLAGS_keepalive_timeout);
  l.min_recv_ping_interval = absl::GetFlag(FLAGS_keepalive_min_ping_interval);
  const int64_t strikes = absl::GetFlag(FLAGS_keepalive_max_ping_strikes);
  l.max_ping_strikes = strikes < 0 || strikes > 1000 ? -1 : static_cast<int>(strikes);
  l.accept_compressed_requests = absl::GetFlag(FLAGS_accept_compressed_requests);
  if (absl::Status s = CheckConnectionLimits(l); !s.ok()) {
    if (l.max_ping_strikes == -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--keepalive_max_ping_strikes=", strikes, " is out of range [0, 1000]"));
    }
    return absl::InvalidArgumentError(absl::StrCat("--", s.message()));
  }
  return l;
}

absl::StatusOr<DrainOptions> DrainOptionsFromFlags(absl::Duration deadline) {
  DrainOptions o;
  o.drain_delay = absl::GetFlag(FLAGS_shutdown_drain_delay);
  o.deadline = deadline;
  o.hard_deadline = absl::GetFlag(FLAGS_shutdown_hard_deadline);
  if (absl::Status s = CheckDrainOptions(o); !s.ok()) return s;
  return o;
}

}  // namespace reco
