// reco_server: the Recommender gRPC server. Flags and wiring only; the server is
// RecoServer (reco_server.h).
//
//   reco_server --listen 127.0.0.1:0 --mode arena_pool
//   -> reco_server: listening on 127.0.0.1:PORT mode=arena_pool
//   reco_server --listen 127.0.0.1:0 --tls_cert cert.pem --tls_key key.pem
//   -> reco_server: listening on 127.0.0.1:PORT mode=arena_pool tls=on
// SIGTERM or SIGINT: drain (server/drain.h), a summary of the measurements on stdout,
// exit 0; past --shutdown_hard_deadline exit 3. Bad flag values exit 2; a busy port
// exits 1.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <iostream>
#include <tuple>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "cli/flag_parse.h"
#include "cli/mutex_checks.h"
#include "core/request.h"
#include "rpc/pem_file.h"
#include "server/ceiling_service.h"
#include "server/connection_limits.h"
#include "server/lifecycle_flags.h"
#include "server/listen_address.h"
#include "server/metrics_endpoint.h"
#include "server/process_metrics.h"
#include "server/reco_server.h"
#include "server/stats_summary.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051", "HOST:PORT to listen on; port 0 picks a free port");
ABSL_FLAG(std::string, mode, "arena_pool",
          "where responses live: heap, reuse, arena or arena_pool; arena_alias: arena_pool with each item's "
          "price, image, rating, seller and shipping aliased from the catalogue, not copied; fragments: no reply "
          "message, the catalogue's "
          "pre-serialized items spliced with per-request scores; or ceiling: every Recommend gets ONE reply "
          "serialized at start-up for the --ceiling_* request, WHATEVER the request says (the transport's limit "
          "on this machine, not a pattern to copy)");
ABSL_FLAG(int64_t, ceiling_items, 200, "ceiling: item_count of the fixed request (reco_load's --items default)");
ABSL_FLAG(std::string, api, "callback",
          "the gRPC API that serves Recommend: callback (gRPC's threads run the handler) or async (completion "
          "queues served by --async_threads threads of the server's own; every --mode)");
ABSL_FLAG(int64_t, async_threads, reco::DefaultAsyncThreads(),
          "--api async: serving threads, one completion queue each (default: the machine's cores)");
ABSL_FLAG(std::string, ceiling_profile, "realistic",
          "ceiling: text profile of the fixed request, realistic or compact");
ABSL_FLAG(int64_t, ceiling_seed, 1, "ceiling: seed of the fixed request (reco_load's --seed default)");
ABSL_FLAG(std::string, ceiling_user, "load-user-0", "ceiling: user_id of the fixed request (reco_load's first)");
ABSL_FLAG(int64_t, catalogue_items, 10000,
          "items per text profile in the catalogue replies are copied from (built at start-up, ~2.2 KB each)");
ABSL_FLAG(uint64_t, catalogue_seed, 1, "seed the catalogue's items are generated from (reco_load reads it from Stats)");
ABSL_FLAG(int64_t, fragments_copy_below_bytes, reco::patterns::SplicedReply::kDefaultCopyFragmentsBelow,
          "fragments: items whose serialized bytes are shorter are copied into the reply rather than referenced "
          "by a slice of their own (0: reference every item, zero-copy; the default copies every catalogue item, "
          "and a reply of copied items only is written once into one exact-size slice: on gRPC 1.51 one copied "
          "slice costs less CPU than a slice per item)");
ABSL_FLAG(int64_t, max_idle, 64,
          "reuse: idle messages the pool keeps (more may be in use; extras are freed on release); arena_pool: "
          "pooled arenas at most, in use plus idle (calls beyond them get a plain arena for themselves); "
          "arena_alias: as arena_pool");
ABSL_FLAG(int64_t, max_kept_bytes, 1 << 20,
          "reuse: a released message whose reply serialized to more than this is freed rather than kept idle "
          "(a kept message keeps its largest size)");
ABSL_FLAG(int64_t, initial_block_bytes, 512 * 1024,
          "arena_pool, arena_alias: bytes of each arena's reused initial block (512 KiB holds a 200-item "
          "response)");
ABSL_FLAG(int64_t, max_block_bytes, 32 << 20,
          "arena_pool, arena_alias: an arena whose reply spilled past its block grows it to fit, up to this "
          "(0: never grows)");
ABSL_FLAG(int64_t, max_pool_bytes, 96 << 20,
          "arena_pool, arena_alias: growth stops when the pooled arenas' blocks would hold more than this in total");
ABSL_FLAG(int64_t, max_receive_message_bytes, 64 * 1024,
          "largest request accepted; larger ones get RESOURCE_EXHAUSTED (requests are tiny)");
ABSL_FLAG(int64_t, max_concurrent_streams, 256, "HTTP/2 concurrent streams allowed per connection");
ABSL_FLAG(int64_t, resource_quota_bytes, 0,
          "gRPC ResourceQuota memory bound in bytes; 0 keeps gRPC's default. (gRPC 1.51 has no thread knob "
          "for callback services: see docs/server.md)");
ABSL_FLAG(int64_t, max_sync_threads, 16,
          "threads gRPC's synchronous services may hold: each open server-reflection stream holds one, and past "
          "this a new reflection call gets RESOURCE_EXHAUSTED (Recommend, health and stats use none)");
ABSL_FLAG(int64_t, inflight_budget_bytes, int64_t{256} << 20,
          "bytes the replies in flight may hold in all (each reserved at its estimate before it is built); a call "
          "that does not fit gets RESOURCE_EXHAUSTED at once. 0 turns the budget off (memory then grows with "
          "connections x streams)");
ABSL_FLAG(int64_t, max_reply_bytes, int64_t{32} << 20,
          "one reply's cap, at its estimate; larger requests get RESOURCE_EXHAUSTED (10,000 realistic items "
          "need about 24 MB)");
ABSL_FLAG(double, max_connection_budget_share, 0.5,
          "the most of --inflight_budget_bytes the replies in flight of ONE connection may hold, in (0, 1]: a "
          "client that never reads leaves the rest to the others (behind a proxy that puts many clients on few "
          "connections, raise it)");
ABSL_FLAG(double, max_client_budget_share, 0.5,
          "the same for ONE client, all its connections together, in (0, 1]; a client is the peer's address "
          "(or --client_header's value); a client whose call --max_reply_hold cancelled is refused for that "
          "long, doubled at each further cancellation (at most 10 min)");
ABSL_FLAG(std::string, client_header, "",
          "metadata naming the client for --max_client_budget_share (its last comma-separated value), e.g. "
          "x-forwarded-for behind the shipped edge, which sets it; trust it only if every connection comes "
          "through such an edge. Empty: the peer's address");
ABSL_FLAG(absl::Duration, max_reply_hold, absl::Seconds(10),
          "a call still holding its reply's budget this long after it was admitted (its client has not taken "
          "the reply) is cancelled, giving the budget back; 0 never cancels, else 100ms to 1h");
ABSL_FLAG(int64_t, check_every_items, 16,
          "a build asks every this many items whether its caller still waits (cancelled or past the deadline) "
          "and stops if not; 0 asks only before building");
ABSL_FLAG(absl::Duration, trim_interval, absl::Seconds(1),
          "glibc only: how often to look whether freed memory should go back to the system (malloc_trim); 0 "
          "never trims");
ABSL_FLAG(int64_t, trim_threshold_bytes, int64_t{16} << 20,
          "trim when glibc holds more free bytes than this and the process allocated more than this since the "
          "last trim");
ABSL_FLAG(int64_t, trim_max_wait_intervals, 4,
          "while the process keeps taking back what each trim returned (steady large replies), trim at most "
          "every this many intervals, waiting twice as long each time; 1: every interval");
ABSL_FLAG(bool, allow_stats_reset, false,
          "let GetStats(reset=true) over RPC restart the stats window (off: refused PERMISSION_DENIED; anyone who "
          "reaches the port could otherwise reset it; readers can take differences of snapshots)");
ABSL_FLAG(bool, reflection, true, "serve gRPC server reflection (v1alpha), so that tools can list the services");
ABSL_FLAG(std::string, metrics_listen, "",
          "HOST:PORT serving GET /metrics in the Prometheus text format (docs/server.md); empty: none");
ABSL_FLAG(std::vector<std::string>, metrics_allow, {},
          "with --metrics_listen: the addresses that may scrape it (IPv4, or ADDRESS/BITS; comma-separated): "
          "every other address is closed at accept, before it can hold one of the endpoint's 2 workers; "
          "empty: any address");
ABSL_FLAG(bool, measure, true, "time the build/serialize/release phases per RPC (false: for measuring the cost)");
ABSL_FLAG(std::string, tls_cert, "",
          "TLS (the spelling of --tls-cert: absl flag names have no '-'): PEM certificate chain file; with "
          "--tls_key, the port speaks TLS only. Both or neither; absent: insecure (the default)");
ABSL_FLAG(std::string, tls_client_ca, "",
          "Mutual TLS: PEM roots a client certificate must chain to; with it every client must present one. "
          "Needs --tls_cert and --tls_key");
ABSL_FLAG(std::string, tls_key, "",
          "TLS (the spelling of --tls-key): PEM private key file of --tls_cert. Never printed");
ABSL_FLAG(absl::Duration, shutdown_deadline, absl::Seconds(5),
          "on SIGTERM/SIGINT, how long in-flight RPCs may take to finish before they are cancelled");

namespace {

[[noreturn]] void BadFlag(const std::string& message) {
  std::cerr << "reco_server: " << message << "\n";
  std::exit(2);
}

// A flag value that must be in [lo, hi].
int64_t Bounded(const absl::Flag<int64_t>& flag, const char* name, int64_t lo, int64_t hi) {
  int64_t v = absl::GetFlag(flag);
  if (v < lo || v > hi) BadFlag(absl::StrCat("--", name, "=", v, " is out of range [", lo, ", ", hi, "]"));
  return v;
}

// The fixed request the ceiling answers: DefaultCeilingRequest() with the --ceiling_* flags.
reco::v1::RecommendRequest CeilingRequestFromFlags() {
  reco::v1::RecommendRequest r = reco::DefaultCeilingRequest();
  r.set_item_count(static_cast<uint32_t>(Bounded(FLAGS_ceiling_items, "ceiling_items", 1, reco::kMaxItemCount)));
  reco::v1::TextProfile profile;
  if (!reco::ParseTextProfile(absl::GetFlag(FLAGS_ceiling_profile), &profile)) {
    BadFlag("--ceiling_profile=" + absl::GetFlag(FLAGS_ceiling_profile) + " is not one of realistic, compact");
  }
  r.set_text_profile(profile);
  r.set_seed(static_cast<uint64_t>(Bounded(FLAGS_ceiling_seed, "ceiling_seed", 0, int64_t{1} << 62)));
  r.set_user_id(absl::GetFlag(FLAGS_ceiling_user));
  return r;
}

reco::MessageStoreOptions StoreFromFlags(reco::ServingMode mode) {
  reco::MessageStoreOptions store;
  store.max_idle = Bounded(FLAGS_max_idle, "max_idle", 0, 1 << 20);
  store.max_kept_bytes = Bounded(FLAGS_max_kept_bytes, "max_kept_bytes", 0, int64_t{1} << 32);
  // 64 MiB is several times a 10,000-item reply's arena; the pool may hold max_idle of them.
  store.initial_block_bytes = Bounded(FLAGS_initial_block_bytes, "initial_block_bytes", 1024, int64_t{64} << 20);
  if (reco::MessageMemoryMode(mode) == reco::MemoryMode::kArenaPool &&
      store.max_idle * store.initial_block_bytes > (int64_t{8} << 30)) {
    BadFlag(absl::StrCat("--max_idle x --initial_block_bytes = ", store.max_idle * store.initial_block_bytes,
                         " bytes is over 8 GiB, the most the arena pool may hold"));
  }
  store.max_block_bytes = Bounded(FLAGS_max_block_bytes, "max_block_bytes", 0, int64_t{1} << 30);
  store.max_pool_bytes = Bounded(FLAGS_max_pool_bytes, "max_pool_bytes", 0, int64_t{8} << 30);
  return store;
}

// What one connection may send and hold.
void ReadTransportFlags(reco::ServerOptions* o) {
  // Requests are a few dozen bytes: 64 bytes holds the smallest, 64 MiB is far past any.
  o->max_receive_message_bytes = Bounded(FLAGS_max_receive_message_bytes, "max_receive_message_bytes", 64, 64 << 20);
  o->max_concurrent_streams = Bounded(FLAGS_max_concurrent_streams, "max_concurrent_streams", 1, 1 << 20);
  o->resource_quota_bytes = Bounded(FLAGS_resource_quota_bytes, "resource_quota_bytes", 0, int64_t{1} << 40);
  o->max_sync_threads = static_cast<int>(
      Bounded(FLAGS_max_sync_threads, "max_sync_threads", reco::kMinSyncThreads, reco::kMaxSyncThreads));
  // Too small a quota to serve one call is refused by RecoServer::Start (exit 2 in main).
  absl::StatusOr<reco::ConnectionLimits> limits = reco::ConnectionLimitsFromFlags();
  if (!limits.ok()) BadFlag(std::string(limits.status().message()));
  o->connection = *limits;
}

// The replies in flight: their budget, and how a build notices it is abandoned.
void ReadReplyBudgetFlags(reco::ServerOptions* o) {
  o->inflight_budget_bytes =
      static_cast<uint64_t>(Bounded(FLAGS_inflight_budget_bytes, "inflight_budget_bytes", 0, int64_t{1} << 40));
  o->max_reply_bytes = static_cast<uint64_t>(Bounded(FLAGS_max_reply_bytes, "max_reply_bytes", 1, int64_t{1} << 40));
  o->max_connection_budget_share = absl::GetFlag(FLAGS_max_connection_budget_share);  // ranged by Start
  o->max_reply_hold = absl::GetFlag(FLAGS_max_reply_hold);
  o->max_client_budget_share = absl::GetFlag(FLAGS_max_client_budget_share);  // ranged by Start
  o->client_header = absl::AsciiStrToLower(absl::GetFlag(FLAGS_client_header));
  o->check_every_items = static_cast<uint32_t>(Bounded(FLAGS_check_every_items, "check_every_items", 0, 1 << 20));
}

reco::TrimOptions TrimFromFlags() {
  reco::TrimOptions trim;
  trim.interval = absl::GetFlag(FLAGS_trim_interval);  // its range: CheckTrimOptions, in Start
  trim.threshold_bytes =
      static_cast<uint64_t>(Bounded(FLAGS_trim_threshold_bytes, "trim_threshold_bytes", 1, int64_t{1} << 40));
  trim.max_wait_intervals =
      static_cast<uint32_t>(Bounded(FLAGS_trim_max_wait_intervals, "trim_max_wait_intervals", 1, 1024));
  return trim;
}

// --tls_cert and --tls_key: both or neither, read and checked as a pair.
void ReadTlsFlags(reco::ServerOptions* o) {
  const std::string cert = absl::GetFlag(FLAGS_tls_cert), key = absl::GetFlag(FLAGS_tls_key);
  if (cert.empty() != key.empty()) {
    BadFlag(cert.empty() ? "--tls_key needs --tls_cert too (TLS takes both or neither)"
                         : "--tls_cert needs --tls_key too (TLS takes both or neither)");
  }
  if (cert.empty()) {
    if (!absl::GetFlag(FLAGS_tls_client_ca).empty()) BadFlag("--tls_client_ca needs --tls_cert and --tls_key (TLS)");
    return;
  }
  if (!absl::GetFlag(FLAGS_tls_client_ca).empty()) {
    const std::string path = absl::GetFlag(FLAGS_tls_client_ca);
    absl::StatusOr<std::string> pem = reco::ReadPemFile("--tls_client_ca", path);
    if (!pem.ok()) BadFlag(std::string(pem.status().message()));
    // gRPC takes any bytes as roots; then every client's handshake fails.
    absl::Status roots = reco::CheckPemCertificate({"--tls_client_ca", path, *pem});
    if (!roots.ok()) BadFlag(std::string(roots.message()));
    o->tls_client_ca_pem = *std::move(pem);
  }
  // Only the flag and path reach stderr; the PEM text stays in memory.
  for (auto [flag, path, out] :
       {std::tuple{"--tls_cert", cert, &o->tls_cert_pem}, std::tuple{"--tls_key", key, &o->tls_key_pem}}) {
    absl::StatusOr<std::string> pem = reco::ReadPemFile(flag, path);
    if (!pem.ok()) BadFlag(std::string(pem.status().message()));
    *out = *std::move(pem);
  }
  absl::Status pair = reco::CheckTlsKeyPair({"--tls_cert", cert, o->tls_cert_pem}, {"--tls_key", key, o->tls_key_pem});
  if (!pair.ok()) BadFlag(std::string(pair.message()));
}

// Every flag's value checked, in the order they are read: the first bad one exits 2.
reco::ServerOptions OptionsFromFlags() {
  reco::ServerOptions o;
  o.listen = absl::GetFlag(FLAGS_listen);
  if (absl::Status s = reco::CheckListenAddress(o.listen); !s.ok()) BadFlag(absl::StrCat("--", s.message()));
  if (!reco::ParseServingMode(absl::GetFlag(FLAGS_mode), &o.mode)) {
    BadFlag("--mode=" + absl::GetFlag(FLAGS_mode) +
            " is not one of heap, reuse, arena, arena_pool, arena_alias, fragments, ceiling");
  }
  if (!reco::ParseServingApi(absl::GetFlag(FLAGS_api), &o.api)) {
    BadFlag("--api=" + absl::GetFlag(FLAGS_api) + " is not one of callback, async");
  }
  o.async_threads = static_cast<int>(Bounded(FLAGS_async_threads, "async_threads", 1, 1024));
  o.ceiling_request = CeilingRequestFromFlags();
  o.catalogue.items_per_profile =
      static_cast<uint32_t>(Bounded(FLAGS_catalogue_items, "catalogue_items", 1, reco::kMaxCatalogueItems));
  o.catalogue.seed = absl::GetFlag(FLAGS_catalogue_seed);
  o.fragments_copy_below_bytes =
      static_cast<size_t>(Bounded(FLAGS_fragments_copy_below_bytes, "fragments_copy_below_bytes", 0, int64_t{1} << 30));
  o.store = StoreFromFlags(o.mode);
  ReadTransportFlags(&o);
  ReadReplyBudgetFlags(&o);
  o.trim = TrimFromFlags();
  o.measure_phases = absl::GetFlag(FLAGS_measure);
  o.allow_stats_reset = absl::GetFlag(FLAGS_allow_stats_reset);
  o.reflection = absl::GetFlag(FLAGS_reflection);
  o.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  o.metrics_allow = absl::GetFlag(FLAGS_metrics_allow);
  if (!o.metrics_listen.empty()) {
    if (absl::Status s = reco::CheckListenAddress(o.metrics_listen); !s.ok())
      BadFlag(absl::StrCat("--metrics_", s.message()));
  }
  if (absl::Status s = reco::CheckMetricsAllow(o.metrics_allow); !s.ok())
    BadFlag(absl::StrCat("--metrics_", s.message()));
  if (!o.metrics_allow.empty() && o.metrics_listen.empty()) BadFlag("--metrics_allow needs --metrics_listen");
  if (absl::GetFlag(FLAGS_shutdown_deadline) < absl::ZeroDuration() ||
      absl::GetFlag(FLAGS_shutdown_deadline) > absl::Hours(1)) {
    BadFlag(absl::StrCat("--shutdown_deadline=", absl::FormatDuration(absl::GetFlag(FLAGS_shutdown_deadline)),
                         " is out of range [0, 1h]"));
  }
  ReadTlsFlags(&o);
  return o;
}

// Settings that start but are likely a mistake: said once, on stderr.
void WarnAboutExposure(const reco::ServerOptions& o) {
  if (reco::ListensOnEveryInterface(o.listen)) {
    std::cerr << "reco_server: warning: --listen=" << o.listen
              << " binds every interface: anyone who reaches this machine can call it (stats and reflection "
                 "included); gRPC 1.51 has no fix for the HTTP/2 rapid-reset and CONTINUATION attacks, so put "
                 "the edge proxy in front (docs/reliability.md) or listen on 127.0.0.1\n";
  }
  const uint64_t memory = reco::MemoryLimitBytes();
  if (memory != 0 && o.inflight_budget_bytes > memory) {
    std::cerr << "reco_server: warning: --inflight_budget_bytes=" << o.inflight_budget_bytes
              << " is more than the memory this process may use (" << memory
              << " bytes: the machine's or its cgroup's limit): the budget cannot stop the replies before the "
                 "kernel does\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest =
      reco::ParseFlagsOrExit2(argc, argv, "reco_server",
                              "The Recommender gRPC server, in one of its serving modes (--mode).\n"
                              "  reco_server --listen 127.0.0.1:0 --mode arena_pool");
  if (rest.size() > 1) BadFlag(absl::StrCat("unexpected argument '", rest[1], "' (flags only; see --help)"));
  reco::ApplyMutexDeadlockDetectionFlag();  // before gRPC starts a thread
  reco::ServerOptions options = OptionsFromFlags();
  absl::StatusOr<reco::DrainOptions> drain = reco::DrainOptionsFromFlags(absl::GetFlag(FLAGS_shutdown_deadline));
  if (!drain.ok()) BadFlag(std::string(drain.status().message()));
  std::cerr << "reco_server: " << reco::RaiseOpenFileLimit() << std::endl;
  WarnAboutExposure(options);

  // Block the stop signals before gRPC starts its threads (they inherit the mask), so
  // that only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto server = reco::RecoServer::Start(options);
  if (!server.ok()) {
    // Options the flags let through but Start refuses (a combination of flags) are
    // flag errors too: exit 2, the flag named. Anything else (a busy port): exit 1.
    if (server.status().code() == absl::StatusCode::kInvalidArgument) {
      BadFlag(absl::StrCat("--", server.status().message()));
    }
    std::cerr << "reco_server: " << server.status().message() << "\n";
    return 1;
  }
  const reco::v1::CatalogueStats catalogue = (*server)->Stats(/*reset=*/false).catalogue();
  std::cerr << absl::StrFormat("reco_server: catalogue of 2 x %u items (seed %u), %.1f MiB, built in %.2f s\n",
                               catalogue.items_per_profile(), catalogue.seed(),
                               catalogue.space_used_bytes() / 1048576.0, catalogue.build_seconds());
  if (options.tls_cert_pem.empty()) {
    std::cerr << "reco_server: connections: "
              << reco::DescribeConnectionCaps(
                     reco::ResolveConnectionCaps(options.connection, options.max_concurrent_streams),
                     options.connection, options.max_concurrent_streams)
              << "\n";
  } else {
    std::cerr << "reco_server: connections: the TLS port is gRPC's own listener: no connection cap, and it stops "
                 "accepting after one EMFILE; for an exposed server, end TLS at the edge (docs/server.md)\n";
  }
  std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::cout << "reco_server: listening on " << host << ":" << (*server)->port()
            << " mode=" << reco::ServingModeName(options.mode)
            << (options.api == reco::ServingApi::kAsync ? absl::StrCat(" api=async threads=", options.async_threads)
                                                        : std::string())
            << (options.tls_cert_pem.empty() ? "" : " tls=on")
            << ((*server)->metrics_port() == 0
                    ? std::string()
                    : absl::StrCat(" metrics=", options.metrics_listen.substr(0, options.metrics_listen.rfind(':')),
                                   ":", (*server)->metrics_port()))
            << std::endl;  // endl: flushed for scripts

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  reco::ShutdownWatchdog watchdog(drain->hard_deadline);  // bounds everything below
  reco::Drain(**server, *drain, &watchdog);
  std::cout << "reco_server: stopped on signal " << signal_number << "\n"
            << reco::FormatStatsSummary((*server)->Stats(/*reset=*/false)) << std::flush;
  server->reset();
  return 0;
}
