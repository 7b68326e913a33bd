// See connection_limits.h.
#include "server/connection_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>

#include <grpc/compression.h>
#include <grpc/grpc.h>

#include "absl/strings/str_cat.h"

namespace reco {
namespace {

absl::Status CheckDuration(const char* name, absl::Duration d, absl::Duration lo) {
  if (d < lo || d > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, "=", absl::FormatDuration(d), " is out of range [", absl::FormatDuration(lo), ", 24h]"));
  }
  return absl::OkStatus();
}

int Millis(absl::Duration d) { return static_cast<int>(absl::ToInt64Milliseconds(d)); }

}  // namespace

absl::Status CheckConnectionLimits(const ConnectionLimits& l) {
  // Millisecond channel args: the smallest meaningful value is 1 ms (tests use ~1 s).
  const absl::Duration ms = absl::Milliseconds(1);
  for (auto [name, d, lo] :
       {std::tuple{"max_connection_idle", l.max_connection_idle, ms},
        std::tuple{"max_connection_age", l.max_connection_age, ms},
        std::tuple{"max_connection_age_grace", l.max_connection_age_grace, absl::ZeroDuration()},
        std::tuple{"handshake_timeout", l.handshake_timeout, ms}, std::tuple{"keepalive_time", l.keepalive_time, ms},
        std::tuple{"keepalive_timeout", l.keepalive_timeout, ms},
        std::tuple{"keepalive_min_ping_interval", l.min_recv_ping_interval, ms}}) {
    if (absl::Status s = CheckDuration(name, d, lo); !s.ok()) return s;
  }
  if (l.stream_memory_bytes < kStreamCostBytes || l.stream_memory_bytes > (int64_t{1} << 40)) {
    return absl::InvalidArgumentError(absl::StrCat("stream_memory_bytes=", l.stream_memory_bytes, " is out of range [",
                                                   kStreamCostBytes, ", ", int64_t{1} << 40, "]"));
  }
  if (l.max_connections_per_source < kPerSourceQuarterOfCap || l.max_connections_per_source > (int64_t{1} << 24)) {
    return absl::InvalidArgumentError(absl::StrCat("max_connections_per_source=", l.max_connections_per_source,
                                                   " is out of range [-1, ", int64_t{1} << 24, "]"));
  }
  if (l.max_connections < 0 || l.max_connections > (int64_t{1} << 24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_connections=", l.max_connections, " is out of range [0, ", int64_t{1} << 24, "]"));
  }
  if (l.max_ping_strikes < 0 || l.max_ping_strikes > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("keepalive_max_ping_strikes=", l.max_ping_strikes, " is out of range [0, 1000]"));
  }
  return absl::OkStatus();
}

void ApplyConnectionLimits(const ConnectionLimits& l, grpc::ServerBuilder* builder) {
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, Millis(l.max_connection_idle));
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, Millis(l.max_connection_age));
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS, Millis(l.max_connection_age_grace));
  builder->AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, Millis(l.handshake_timeout));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, Millis(l.keepalive_time));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, Millis(l.keepalive_timeout));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, Millis(l.min_recv_ping_interval));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, l.max_ping_strikes);
  // gRPC checks an incoming call's grpc-encoding against this set when its headers
  // arrive (surface/call.cc) and cancels it with UNIMPLEMENTED "Compression
  // algorithm 'gzip' is disabled." before any message is read or inflated.
  for (grpc_compression_algorithm a : {GRPC_COMPRESS_DEFLATE, GRPC_COMPRESS_GZIP}) {
    builder->SetCompressionAlgorithmSupportStatus(a, l.accept_compressed_requests);
  }
}

ConnectionCaps ResolveConnectionCaps(const ConnectionLimits& l, int max_concurrent_streams) {
  ConnectionCaps caps{};
  caps.descriptors = l.max_connections != 0 ? l.max_connections : DefaultMaxConnections();
  const int64_t per_connection = kConnectionCostBytes + std::max<int64_t>(max_concurrent_streams, 1) * kStreamCostBytes;
  caps.connections = std::max<int64_t>(l.stream_memory_bytes / per_connection, 1);
  const int64_t smaller = caps.descriptors > 0 ? std::min(caps.descriptors, caps.connections) : caps.connections;
  caps.per_source = l.max_connections_per_source == kPerSourceQuarterOfCap ? std::max<int64_t>(smaller / 4, 1)
                                                                           : l.max_connections_per_source;
  return caps;
}

std::string DescribeConnectionCaps(const ConnectionCaps& caps, const ConnectionLimits& l, int max_concurrent_streams) {
  return absl::StrCat("at most ", caps.connections, " connections (--stream_memory_bytes=", l.stream_memory_bytes,
                      " / (", kConnectionCostBytes / 1024, " KiB + ", max_concurrent_streams, " streams x ",
                      kStreamCostBytes / 1024, " KiB))",
                      caps.descriptors > 0 ? absl::StrCat(" and ", caps.descriptors, " descriptors (--max_connections)")
                                           : std::string(),
                      ", ", caps.per_source == 0 ? std::string("any number") : absl::StrCat(caps.per_source),
                      " from one address (--max_connections_per_source)");
}

int64_t DefaultMaxConnections() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return 0;
  const auto limit = static_cast<int64_t>(lim.rlim_cur);
  return std::max(limit / 2, limit - kReservedDescriptors);
}

std::string RaiseOpenFileLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return absl::StrCat("getrlimit(RLIMIT_NOFILE): ", std::strerror(errno));
  if (lim.rlim_cur >= lim.rlim_max) return absl::StrCat("open files limit ", lim.rlim_cur, " (already the hard limit)");
  const rlim_t from = lim.rlim_cur;
  lim.rlim_cur = lim.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return absl::StrCat("open files limit stays ", from, ": setrlimit to ", lim.rlim_max, ": ", std::strerror(errno));
  }
  return absl::StrCat("open files limit raised from ", from, " to ", lim.rlim_max);
}

}  // namespace reco
