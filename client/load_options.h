// LoadOptions: what reco_load is asked to do, and the checks that refuse bad input
// before any request is sent.
//
// The flags (reco_load.cc) fill a LoadOptions; ValidateLoadOptions then names the
// first bad flag in an INVALID_ARGUMENT status, so a typo never turns into load.
//
// Example:
//   absl::StatusOr<reco::TargetSpec> t = reco::ParseTargetSpec("heap=127.0.0.1:50051");
//   // t->name == "heap", t->address == "127.0.0.1:50051"
//   reco::ParseTargetSpec("127.0.0.1:50051")->name   // "127.0.0.1_50051": named after itself
//   reco::ParseTargetSpec("heap=127.0.0.1").status().message()
//   // "--target 'heap=127.0.0.1': expected [NAME=]HOST:PORT or [NAME=]dns:///HOST:PORT, ..."
//
// Replicas: a name given again adds a backend to that target, which stays one target
// (one report column); its calls are spread by gRPC's load balancing (--lb_policy).
//   reco::ParseTargetFlags({"a=127.0.0.1:5001", "a=127.0.0.1:5002", "b=dns:///svc:80"})
//   // {{"a", "127.0.0.1:5001,127.0.0.1:5002"}, {"b", "dns:///svc:80"}}
//   // Backends() of the first: {"127.0.0.1:5001", "127.0.0.1:5002"}
//
// Plain values; no thread-safety concerns.
#ifndef ARENA_GRPC_CLIENT_LOAD_OPTIONS_H_
#define ARENA_GRPC_CLIENT_LOAD_OPTIONS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpc/compression.h>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "proto/reco.pb.h"

namespace reco {

struct TargetSpec {
  std::string name;  // a label for reports: "heap", "arena_pool", ...
  // HOST:PORT; or dns:///HOST:PORT (every address the name resolves to); or, for a
  // target with replicas, their HOST:PORTs joined by commas (a comma never occurs
  // inside one --target value, so the join is unambiguous).
  std::string address;

  // The backends: address split at its commas (one element for HOST:PORT or dns:///).
  std::vector<std::string> Backends() const;
  bool IsDns() const;  // address is dns:///HOST:PORT
};

// What a generic run calls (--call): any unary method, with requests made from the
// user's JSON or bytes (client/call_flags.h). Empty `method`: reco's Recommend, with
// its requests built from items/profile/seed and every reply checked byte for byte.
struct CallSpec {
  std::string method;        // on the wire: "/package.Service/Method"
  std::string request_type;  // full names, for reports
  std::string reply_type;
  // Serialized; cycled through, one per call. A client-streaming method's are each a
  // call's messages in protobuf's delimited form (schema/request_data.h).
  std::vector<std::string> requests;
  bool server_streaming = false;  // the method answers with a stream of messages
  bool client_streaming = false;  // each call sends a stream of messages
  // --data with placeholders (client/request_template.h): each call's request,
  // serialized, for the call's number; requests then holds call 0's, for the probe.
  // Null otherwise.
  std::function<std::string(uint64_t call_number, absl::Time now, absl::BitGenRef rng)> render_request;
};

// --metadata KEY=VALUE pairs, sent with every call.
using CallMetadata = std::vector<std::pair<std::string, std::string>>;  // = rpc/unary_call.h RequestMetadata

struct LoadOptions {
  // The first target is the baseline every ratio is computed against.
  std::vector<TargetSpec> targets;
  // Per round and target: warmup (not recorded), then the measured window.
  absl::Duration warmup = absl::Seconds(1);
  absl::Duration duration = absl::Seconds(5);
  // Targets are driven one at a time, in rounds A B C A B C ..., so that noise on a
  // shared machine lands on every target alike.
  int rounds = 3;
  // Distributed load: after every target answered its probe, wait until the wall
  // clock reaches the next multiple of this (e.g. 30s) before the first warm-up, so
  // that load processes started within one period begin their windows together
  // (reco_load merge refuses windows that did not overlap). The wait is after the
  // probes because their time differs from process to process (DNS, connecting).
  // Zero: start at once.
  absl::Duration align_start = absl::ZeroDuration();
  // A cap on the whole run (--run_timeout): no round starts that would end past it,
  // by the length of the round before. Zero: none.
  absl::Duration run_timeout = absl::ZeroDuration();
  // Closed loop: requests in flight per target. Open loop: the most in flight at
  // once; when all are busy, scheduled requests wait (and the lag is reported).
  int concurrency = 16;
  // Channels per target; requests spread over them. Each channel connects to every
  // backend of its target (round_robin), so a target with N replicas holds up to
  // connections x N HTTP/2 connections: `connections` per backend.
  int connections = 2;
  // gRPC's load-balancing policy for a target with several backends or a dns:///
  // address: "round_robin" spreads calls over all of them, "pick_first" keeps a
  // channel on one. A single HOST:PORT target is dialled as before, without it.
  std::string lb_policy = "round_robin";
  // gRPC's per-stream read-ahead (GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES); 0 keeps
  // gRPC's default (64 KiB, grown by BDP probing), which is what a typical client
  // runs with. A default response outgrows that first window, so a larger value can
  // spare the server a wait for WINDOW_UPDATE mid-response (h2load opens 1 GiB
  // windows); on our 2-core machine the difference was within the noise
  // (docs/load-client.md, "Load shape", has the response's size and the comparison).
  int lookahead_bytes = 0;
  // The largest reply a call may receive; past it the call fails RESOURCE_EXHAUSTED.
  // A bound on what a server can make the client buffer (none, as before: whatever
  // length the server claims), above the server's default --max_reply_bytes.
  int max_receive_message_bytes = 64 << 20;
  // Threads that drive the completion queues, each with its own. 0: one per connection,
  // at most the machine's CPUs (ResolvedThreads). One thread was the limit against
  // fast targets: with 2 connections, 2 threads raised the ceiling's req/s and lowered
  // the server's CPU per RPC (scripts/compare_h2load.sh, docs/load-client.md).
  int threads = 0;
  // Requests per second, 0.001 to 1e7; 0 means closed loop.
  double rate = 0;
  // The request: item_count, text profile, and a seed for its content.
  uint32_t items = 200;
  v1::TextProfile profile = v1::TEXT_PROFILE_REALISTIC;
  uint64_t seed = 1;
  // Distinct requests cycled through (user ids and seeds differ). 1 makes every
  // RPC identical, so per-RPC server figures are exact integers.
  int variants = 4;  // RequestSet::kDefaultVariants
  // Every response's item count is checked; one in `verify_every` (and each
  // thread's first of a window) is compared byte for byte with the builder's output.
  int verify_every = 64;
  // Errors (any non-OK status, wrong item count or content) over all requests; above
  // this fraction the run fails.
  double max_error_rate = 0;
  // How long a target may take to answer the reachability probe, and any one RPC.
  absl::Duration probe_deadline = absl::Seconds(3);
  absl::Duration rpc_deadline = absl::Seconds(10);
  // TLS: PEM roots to trust (the content of --tls_ca, read by main). Non-empty dials
  // every target with TLS; empty dials insecure. tls_server_name, when set, is the
  // name checked against the server's certificate instead of the target's host.
  std::string tls_ca_pem;
  std::string tls_server_name;

  // TLS client certificate (mutual TLS): PEM chain and key (the contents of
  // --tls_cert and --tls_key), both or neither, only with tls_ca_pem.
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // TLS without verifying the server (--tls_skip_verify): instead of tls_ca_pem.
  bool tls_skip_verify = false;
  // A generic run (--call); empty method for Recommend.
  CallSpec call;
  CallMetadata metadata;
  // Every request compressed with this (--compression); GRPC_COMPRESS_NONE: not.
  grpc_compression_algorithm compression = GRPC_COMPRESS_NONE;
  // Kept in the reports as they are (--name, --tags).
  std::string name;
  std::vector<std::pair<std::string, std::string>> tags;
  // The next call's number, for {{.RequestNumber}}: one count for the whole run, every
  // target and round (copies of these options share it).
  std::shared_ptr<std::atomic<uint64_t>> call_numbers = std::make_shared<std::atomic<uint64_t>>(0);
  // Calls per target and round in the measured window (--total); 0: by --duration.
  // In an open loop it is the window's length instead: total / rate seconds.
  int64_t total = 0;

  bool open_loop() const { return rate > 0; }
  bool generic() const { return !call.method.empty(); }
  // A closed loop that stops after `total` calls rather than at a time.
  bool counted() const { return total > 0 && !open_loop(); }
};

// --compression's value: "identity" (none), "gzip" or "deflate"; else INVALID_ARGUMENT
// naming the flag.
absl::StatusOr<grpc_compression_algorithm> ParseCompressionFlag(absl::string_view name);
// --tags' value: a JSON object whose values are strings ("" for none), sorted by
// key; else INVALID_ARGUMENT naming the flag.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseTagsFlag(absl::string_view json);

// "KEY=VALUE" -> a metadata pair, or INVALID_ARGUMENT naming --metadata: keys are
// lower case letters, digits, '-', '_' and '.', not starting with "grpc-"; values are
// printable ASCII unless the key ends in "-bin" (then any bytes, sent base64 by gRPC).
absl::StatusOr<std::pair<std::string, std::string>> ParseMetadataFlag(absl::string_view value);

// "NAME=HOST:PORT" or "NAME=dns:///HOST:PORT" -> TargetSpec, or INVALID_ARGUMENT
// naming --target. PORT is digits only, 1 to 65535 ("+80" and " 80" are refused).
// Without "NAME=" the target is named after its address, each character a name may
// not hold made '_' (ghz's habit: one bare HOST:PORT).
absl::StatusOr<TargetSpec> ParseTargetSpec(absl::string_view value);

// Every --target value, parsed; values with the same name become one target with
// several backends, in the order first given. INVALID_ARGUMENT naming --target for a
// bad value, a backend given twice for one name, a dns:/// address among others
// under one name (gRPC dials one resolver per channel), or a host name among several
// backends (the ipv4:/ipv6: list gRPC balances over takes IP addresses only).
absl::StatusOr<std::vector<TargetSpec>> ParseTargetFlags(const std::vector<std::string>& values);

// The gRPC target string of a spec: the address itself for HOST:PORT and dns:///;
// "ipv4:A:P,B:P" (or ipv6:) for several backends.
std::string GrpcTargetOf(const TargetSpec& spec);

// The service config that selects `lb_policy`, e.g.
// {"loadBalancingConfig":[{"round_robin":{}}]}.
std::string LbServiceConfigJson(absl::string_view lb_policy);

// The first multiple of `period` since the Unix epoch that is after `now`; `now`
// itself when period is zero. E.g. period 30s, now 12:00:07.2 -> 12:00:30.
absl::Time NextAlignedStart(absl::Time now, absl::Duration period);

// A duration flag: "5" (seconds), "2.5s", "500ms", "1m". INVALID_ARGUMENT naming
// `flag` otherwise ("nan" too). Negative and infinite values ("inf", "1e300") parse;
// ValidateLoadOptions judges them against the flag's range.
absl::StatusOr<absl::Duration> ParseDurationFlag(absl::string_view flag, absl::string_view value);

// --rate: "" (absent) is 0, a closed loop; otherwise requests per second from 0.001
// to 1e7, or INVALID_ARGUMENT naming --rate.
absl::StatusOr<double> ParseRateFlag(absl::string_view value);

// The --target values from the command line and the --flagfile files it names (their
// flags in place, as absl reads them): "--target X", "--target=X" (and one dash), each
// possibly comma-separated. absl keeps only the last occurrence of a flag, and
// targets are repeatable, so main collects them itself.
std::vector<std::string> CollectTargetFlags(int argc, char** argv);
// The same for any repeatable flag (--metadata, --import_path); comma_lists splits
// each value at its commas.
std::vector<std::string> CollectRepeatedFlag(int argc, char** argv, absl::string_view name, bool comma_lists);

// The driver threads a run uses: options.threads, or for 0 one per connection, at
// most the machine's CPUs and at most `concurrency` (a thread without a slot idles).
int ResolvedThreads(const LoadOptions& options);

// For reports: what each call sends ("200 items, realistic text", or for --call
// "/inbox.v1.Inbox/ListThreads, 3 request(s)"), and how long a window is ("5s
// measured", "1000 calls measured").
std::string DescribeWorkload(const LoadOptions& options);
std::string DescribeWindow(const LoadOptions& options);

// OK, or INVALID_ARGUMENT whose message starts with the offending flag ("--rate ...")
// and says what it takes. The ranges: --duration 10ms to 24h, --warmup 0 to 24h,
// --timeout and --probe_deadline above 0 and at most 1h, --rate 0.001 to 1e7 (0: a
// closed loop), --align_start 0 to 1h.
absl::Status ValidateLoadOptions(const LoadOptions& options);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_LOAD_OPTIONS_H_
