// RecoServer: the Recommender service (and ServerStats, health, reflection) running
// in this process, in one of its serving modes (ServingMode below). reco_server's main
// and the tests use it alike.
//
// Lifetime: Start() builds and starts a gRPC server listening on options.listen
// (port 0 picks a free port: read it with port()). Shutdown() stops accepting RPCs,
// lets in-flight ones finish until the deadline (then cancels them) -- under --api
// async then stops the serving threads, returning once every call gave its messages
// and reservation back -- and is idempotent; Wait() blocks until the server has stopped. Destroying a RecoServer
// shuts it down with a zero deadline. Everything the server's RPCs touch (store,
// meter) is owned here and outlives the gRPC server.
//
// Example (compiled and run in server/header_examples_test.cc):
//   reco::ServerOptions options;
//   options.listen = "127.0.0.1:0";
//   options.mode = reco::ServingMode::kArena;
//   auto server = reco::RecoServer::Start(options);
//   if (!server.ok()) return server.status();
//   int port = (*server)->port();
//   ...send RPCs to 127.0.0.1:port...
//   reco::v1::StatsSnapshot stats = (*server)->Stats(/*reset=*/false);
//   (*server)->Shutdown(absl::Seconds(5));
//
// Thread-safety: port() and Stats() from any thread; Shutdown() from any thread,
// including concurrently with Wait(). Start() flips gRPC's process-wide "default
// health check service" switch on.
#ifndef ARENA_GRPC_SERVER_RECO_SERVER_H_
#define ARENA_GRPC_SERVER_RECO_SERVER_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/catalogue.h"
#include "core/message_store.h"
#include "patterns/spliced_reply.h"
#include "proto/reco.pb.h"
#include "proto/stats.pb.h"
#include "server/connection_limits.h"
#include "server/memory_trimmer.h"

namespace reco {

// Every way the server can answer Recommend; --mode and StatsSnapshot.mode name them
// (ServingModeName).
//   kHeap, kReuse, kArena, kArenaPool
//               reply messages built by RecommenderService in that memory mode
//               (core/message_store.h; MessageMemoryMode gives it);
//   kArenaAlias arena_pool's store, each reply item's Price, Image, Rating, Seller
//               and Shipping aliased from the catalogue instead of copied
//               (ItemData::kAliased, core/response_builder.h; patterns/arena_alias.h);
//   kFragments  replies spliced from the catalogue's pre-serialized items
//               (fragments_service.h): a real handler, no reply message, no store;
//   kCeiling    every Recommend answered with the one reply to ceiling_request,
//               serialized at start-up (ceiling_service.h). It ignores the request's
//               content: the limit of the transport, not a pattern to copy.
enum class ServingMode { kHeap, kReuse, kArena, kArenaPool, kArenaAlias, kFragments, kCeiling };

// The memory mode a message-building mode builds in (arena_alias: kArenaPool); nullopt
// for fragments and the ceiling, which build no reply message.
std::optional<MemoryMode> MessageMemoryMode(ServingMode mode);
// The serving mode that builds its replies in memory mode `mode` (copying the catalogue's items).
ServingMode ServingModeFor(MemoryMode mode);
// "heap", "reuse", "arena", "arena_pool", "arena_alias", "fragments" or "ceiling":
// StatsSnapshot.mode.
std::string ServingModeName(ServingMode mode);
// Sets *mode from one of the names above; false for anything else.
bool ParseServingMode(absl::string_view name, ServingMode* mode);
// The modes that answer each request for itself, in report order: the four memory
// modes, arena_alias, then fragments (not the ceiling). What tests and scripts iterate over.
const std::vector<std::string>& RequestServingModes();

// Which gRPC API serves Recommend (--api): the callback API (gRPC's threads run the
// handlers; the memory modes install their MessageAllocator) or the asynchronous
// completion-queue API (async_threads threads of our own, one queue each; the same
// allocators, driven by patterns/async_arena_call.h). "callback" or "async".
enum class ServingApi { kCallback, kAsync };
std::string ServingApiName(ServingApi api);
// Sets *api from "callback" or "async"; false for anything else.
bool ParseServingApi(absl::string_view name, ServingApi* api);
// async_threads' default: one serving thread per core the machine reports (at least 1).
int DefaultAsyncThreads();

// ServerOptions::max_sync_threads' range. gRPC 1.51's synchronous server keeps pollers
// of its own within the same bound: below 4 it served no reflection call at all.
inline constexpr int kMinSyncThreads = 4;
inline constexpr int kMaxSyncThreads = 4096;

struct ServerOptions {
  std::string listen = "127.0.0.1:50051";      // "127.0.0.1:0" picks a free port
  ServingMode mode = ServingMode::kArenaPool;  // what answers Recommend
  ServingApi api = ServingApi::kCallback;      // how gRPC hands Recommend calls to it
  // kAsync: the serving threads, each with its own completion queue (at least 1).
  int async_threads = DefaultAsyncThreads();
  MessageStoreOptions store;  // the memory modes' pool bound, initial block size
  // The catalogue replies are copied from (core/catalogue.h), built at start-up:
  // 10,000 items per text profile by default (its size and build time: docs/server.md).
  CatalogueOptions catalogue;
  // Requests are a few dozen bytes; anything larger than this is refused by gRPC
  // (RESOURCE_EXHAUSTED) before the handler runs.
  int max_receive_message_bytes = 64 * 1024;
  // HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS per connection.
  int max_concurrent_streams = 256;
  // gRPC ResourceQuota memory bound for the server's transports, in bytes; 0 keeps
  // gRPC's default (no explicit bound). gRPC 1.51 offers no thread knob for callback
  // services: their handlers run on gRPC's internal executor threads (see
  // docs/server.md); ResourceQuota::SetMaxThreads bounds sync-server threads only.
  int64_t resource_quota_bytes = 0;
  // Threads gRPC's synchronous services may hold (ResourceQuota::SetMaxThreads). Server
  // reflection is one: each open reflection stream holds a thread until it ends, so
  // without a bound a client holding streams open grows the process by a thread each.
  // Past the bound a new reflection call gets RESOURCE_EXHAUSTED; the message modes,
  // health and stats are callback services and run on no such thread.
  int max_sync_threads = 16;
  // The reply budget (reply_budget.h, call_reservations.h): the bytes all replies in
  // flight may hold, each reserved at its estimate (core/reply_memory.h) before it is
  // built; a call that does not fit gets RESOURCE_EXHAUSTED at once. 0 turns it off.
  // The default keeps a server well inside a 1 GiB container. Not used by the ceiling.
  uint64_t inflight_budget_bytes = uint64_t{256} << 20;
  // One reply's cap, at its estimate: the largest request (10,000 realistic items) fits.
  uint64_t max_reply_bytes = uint64_t{32} << 20;
  // Fairness within the budget (call_reservations.h): one connection's reservations
  // hold at most this share of it, and a call still holding its reservation this
  // long after admission (its reply not taken) is cancelled. Half, so that one
  // client that never reads leaves the other half to everyone else; seconds, so that
  // what it holds comes back soon.
  double max_connection_budget_share = 0.5;
  absl::Duration max_reply_hold = absl::Seconds(10);
  // The same share for one client, all its connections together; a client is the
  // peer's address, or the last value of client_header (x-forwarded-for behind the
  // shipped edge). A client whose call was cancelled for holding is refused for
  // max_reply_hold, doubled at each further cancellation (call_reservations.h).
  double max_client_budget_share = 0.5;
  std::string client_header;
  // How often a build asks whether its caller still waits (cancelled, or past the
  // deadline), in items; 0 asks once, before building.
  uint32_t check_every_items = 16;
  // Giving freed memory back to the system (memory_trimmer.h); interval 0: never.
  TrimOptions trim;
  // Time the build, serialize and release phases (RpcMeter). false installs none of
  // the measurement (RPCs are still counted): for measuring what measuring costs.
  bool measure_phases = true;
  // fragments: catalogue items whose bytes are shorter than this are copied into the
  // reply instead of referenced (patterns/spliced_reply.h); SIZE_MAX copies all.
  size_t fragments_copy_below_bytes = patterns::SplicedReply::kDefaultCopyFragmentsBelow;
  // Must pass ValidateRequest. reco_server's flags default it to
  // DefaultCeilingRequest() (ceiling_service.h): reco_load's first request.
  v1::RecommendRequest ceiling_request;
  // TLS: PEM text of the certificate chain and its private key, both or neither
  // (Start refuses one alone). Empty: an insecure port, the default (loopback only
  // by default). Start never logs or echoes either string.
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // Mutual TLS: PEM roots that a client certificate must chain to; every client must
  // present one (the handshake fails otherwise). Empty: no client certificates.
  std::string tls_client_ca_pem;
  // GetStats(reset=true) over RPC: refused PERMISSION_DENIED unless true. A reset
  // starts a new stats window for every reader of the server; anyone who can reach
  // the port could otherwise disturb a measurement (or, in a loop, the service).
  // Readers take differences of snapshots instead (reco_load does).
  bool allow_stats_reset = false;
  // Server reflection (grpc.reflection.v1alpha): lets tools list and describe the
  // services. gRPC 1.51's switch is process-wide: once one server in a process turned
  // it on, later ones serve it too.
  bool reflection = true;
  // HOST:PORT of an HTTP port serving GET /metrics in the Prometheus text format
  // (server/metrics_endpoint.h: its own memory bound); empty: none. Port 0 picks one.
  std::string metrics_listen;
  // The addresses (IPv4, or ADDRESS/BITS) that may connect to metrics_listen; empty:
  // any (server/metrics_endpoint.h).
  std::vector<std::string> metrics_allow;
  // Connection lifetime, keepalive enforcement, accepted request encodings
  // (server/connection_limits.h); on by default.
  ConnectionLimits connection;
};

class RecoServer {
 public:
  static absl::StatusOr<std::unique_ptr<RecoServer>> Start(const ServerOptions& options);
  ~RecoServer();

  int port() const;                        // the bound port
  const ServerOptions& options() const;    // what it was started with
  v1::StatsSnapshot Stats(bool reset);     // same as the GetStats RPC
  v1::StatsSnapshot SinceStart();          // the same figures since Start, whatever the resets
  int metrics_port() const;                // the metrics port bound; 0 without metrics_listen
  void BeginDrain();                       // health NOT_SERVING; calls still served (drain.h)
  void Shutdown(absl::Duration deadline);  // graceful: stop accepting, finish in-flight
  void Wait();

  RecoServer(const RecoServer&) = delete;
  RecoServer& operator=(const RecoServer&) = delete;

 private:
  struct Parts;  // services, store, meter: declared in the .cc
  explicit RecoServer(std::unique_ptr<Parts> parts);

  std::unique_ptr<Parts> parts_;
  std::mutex shutdown_mu_;
  bool shut_down_ = false;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_RECO_SERVER_H_
