// See reco_server.h.
#include "server/reco_server.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>

#include "absl/strings/str_cat.h"
#include "core/allocation_counter.h"
#include "core/reply_memory.h"
#include "core/request.h"
#include "core/response_builder.h"
#include "server/async_raw_recommender.h"
#include "server/async_recommender.h"
#include "server/call_reservations.h"
#include "server/ceiling_service.h"
#include "server/connection_acceptor.h"
#include "server/fragments_service.h"
#include "server/listen_address.h"
#include "server/metrics_endpoint.h"
#include "server/recommender_service.h"
#include "server/rpc_meter.h"
#include "server/stats_service.h"
#include "server/stats_snapshotter.h"
#include "server/unserved_method_service.h"

namespace reco {

// Declaration order is destruction order reversed: the gRPC server goes first, then
// what its RPCs use (services, meter, store).
struct RecoServer::Parts {
  ServerOptions options;
  std::shared_ptr<const Catalogue> catalogue;  // what replies are copied from
  std::unique_ptr<MessageStore> store;         // null in heap mode: gRPC owns the messages
  std::unique_ptr<RpcMeter> meter;             // after the store: its allocator wraps the store's
  std::unique_ptr<ReplyBudget> budget;         // null when off; the server's CallReservations use it
  std::unique_ptr<MemoryTrimmer> trimmer;
  std::unique_ptr<StatsSnapshotter> snapshotter;
  // --api async: heap's allocator (the others are the store's), the serving threads'
  // queues (they outlive the server, as gRPC requires) and the method they serve.
  std::unique_ptr<RecommendAllocator> heap_allocator;
  std::unique_ptr<patterns::ServingThreads> serving;
  std::unique_ptr<AsyncRecommender> async_recommend;  // the message modes
  std::unique_ptr<AsyncRawRecommender> async_raw;     // fragments and the ceiling
  // Answers Recommend: RecommenderService, FragmentsService or CeilingService (MakeService);
  // under --api async, null in the message modes and not registered in the others (its
  // handler serves async_raw's calls).
  std::unique_ptr<grpc::Service> recommend;
  std::unique_ptr<StatsService> stats;
  std::unique_ptr<UnservedMethodService> unserved;  // every path the services above do not serve
  std::unique_ptr<grpc::Server> server;
  // Insecure ports only: accepts for `server`, so it stops (and goes) before it.
  std::unique_ptr<ConnectionAcceptor> acceptor;
  int port = 0;
  // After the server: stops (and goes) first, so no scrape reads a server going away.
  std::unique_ptr<MetricsEndpoint> metrics;

  // Start's steps, in the order it takes them.
  CallReservations* InstallReplyBudget(grpc::ServerBuilder* builder);
  void MakeService(CallReservations* reservations);
  void MakeAsyncService(RecommendAllocator* allocator, CallReservations* reservations);
  void ArmAsync(patterns::ServingQueue* queue);
  absl::Status Listen(grpc::ServerBuilder* builder);
  void RegisterServices(grpc::ServerBuilder* builder);
  absl::Status StartServing(grpc::ServerBuilder* builder);
};

namespace {

// --max_reply_hold's range when on: under 100 ms a reply on a busy machine could be
// cancelled while it is still being sent; over an hour it would not bound anything.
constexpr absl::Duration kMinReplyHold = absl::Milliseconds(100);
constexpr absl::Duration kMaxReplyHold = absl::Hours(1);

// The reply budget's options, when it is on.
absl::Status CheckReplyBudget(const ServerOptions& o) {
  v1::RecommendRequest default_request;  // 200 realistic items
  const uint64_t one_default_reply = EstimateReplyBytes(default_request);
  if (o.max_reply_bytes < one_default_reply) {
    return absl::InvalidArgumentError(absl::StrCat("max_reply_bytes: ", o.max_reply_bytes,
                                                   " is below one default 200-item reply (", one_default_reply,
                                                   " bytes)"));
  }
  if (o.inflight_budget_bytes < o.max_reply_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("inflight_budget_bytes: ", o.inflight_budget_bytes,
                                                   " is below max_reply_bytes (", o.max_reply_bytes,
                                                   "): the largest reply allowed could never be admitted"));
  }
  if (!(o.max_connection_budget_share > 0 && o.max_connection_budget_share <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_connection_budget_share: ", o.max_connection_budget_share, " is not in (0, 1]"));
  }
  if (!(o.max_client_budget_share > 0 && o.max_client_budget_share <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_client_budget_share: ", o.max_client_budget_share, " is not in (0, 1]"));
  }
  if (o.max_reply_hold < absl::ZeroDuration() ||
      (o.max_reply_hold > absl::ZeroDuration() && o.max_reply_hold < kMinReplyHold) ||
      o.max_reply_hold > kMaxReplyHold) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_reply_hold: ", absl::FormatDuration(o.max_reply_hold), " is not 0 (never cancel) or between ",
                     absl::FormatDuration(kMinReplyHold), " and ", absl::FormatDuration(kMaxReplyHold)));
  }
  return absl::OkStatus();
}

absl::Status CheckOptions(const ServerOptions& o) {
  if (absl::Status s = CheckListenAddress(o.listen); !s.ok()) return s;
  if (!o.metrics_listen.empty()) {
    if (absl::Status s = CheckMetricsListen(o.metrics_listen); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("metrics_", s.message()));
    }
  }
  if (absl::Status s = CheckMetricsAllow(o.metrics_allow); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("metrics_", s.message()));
  }
  if (!o.metrics_allow.empty() && o.metrics_listen.empty()) {
    return absl::InvalidArgumentError("metrics_allow needs metrics_listen");
  }
  if (o.api == ServingApi::kAsync) {
    if (o.async_threads < 1) {
      return absl::InvalidArgumentError(absl::StrCat("async_threads: ", o.async_threads, " is not positive"));
    }
  }
  if (absl::Status s = CheckConnectionLimits(o.connection); !s.ok()) return s;
  if (o.max_receive_message_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_receive_message_bytes: ", o.max_receive_message_bytes, " is not positive"));
  }
  if (o.max_concurrent_streams <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_concurrent_streams: ", o.max_concurrent_streams, " is not positive"));
  }
  if (o.resource_quota_bytes > 0 && o.resource_quota_bytes < kMinResourceQuotaBytes) {
    return absl::InvalidArgumentError(absl::StrCat("resource_quota_bytes=", o.resource_quota_bytes,
                                                   " is too small to serve a call: 0 (gRPC's default) or at least ",
                                                   kMinResourceQuotaBytes));
  }
  if (o.max_sync_threads < kMinSyncThreads || o.max_sync_threads > kMaxSyncThreads) {
    return absl::InvalidArgumentError(absl::StrCat("max_sync_threads: must be from ", kMinSyncThreads, " to ",
                                                   kMaxSyncThreads, ", got ", o.max_sync_threads));
  }
  if (o.resource_quota_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("resource_quota_bytes: ", o.resource_quota_bytes, " is negative"));
  }
  if (o.inflight_budget_bytes != 0) {
    if (absl::Status s = CheckReplyBudget(o); !s.ok()) return s;
  }
  if (absl::Status s = ValidateCatalogueOptions(o.catalogue); !s.ok()) return s;
  if (absl::Status s = CheckTrimOptions(o.trim); !s.ok()) return s;
  if (o.tls_cert_pem.empty() != o.tls_key_pem.empty()) {
    return absl::InvalidArgumentError(o.tls_cert_pem.empty()
                                          ? "tls_key_pem without tls_cert_pem: give both or neither"
                                          : "tls_cert_pem without tls_key_pem: give both or neither");
  }
  if (!o.tls_client_ca_pem.empty() && o.tls_cert_pem.empty()) {
    return absl::InvalidArgumentError("tls_client_ca_pem without tls_cert_pem: client certificates need TLS");
  }
  if (o.mode == ServingMode::kCeiling) {
    if (absl::Status s = ValidateRequest(o.ceiling_request); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("ceiling_request: ", s.message()));
    }
  } else if (MessageMemoryMode(o.mode) == MemoryMode::kArenaPool && o.store.initial_block_bytes == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("initial_block_bytes: must be positive in ", ServingModeName(o.mode), " mode"));
  }
  return absl::OkStatus();
}

// Insecure by default; with a certificate and key, TLS; with client roots too, TLS
// that requires and verifies a client certificate.
std::shared_ptr<grpc::ServerCredentials> ListeningCredentials(const ServerOptions& o) {
  if (o.tls_cert_pem.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl(o.tls_client_ca_pem.empty()
                                            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = o.tls_client_ca_pem;
  ssl.pem_key_cert_pairs.push_back({o.tls_key_pem, o.tls_cert_pem});
  return grpc::SslServerCredentials(ssl);
}

// What every connection may send and hold: request size, streams, keepalive and
// lifetime (connection_limits.h), gRPC's memory quota when one is set, and the
// threads its synchronous services may hold.
void ApplyTransportLimits(const ServerOptions& o, grpc::ServerBuilder* builder) {
  builder->SetMaxReceiveMessageSize(o.max_receive_message_bytes);
  builder->AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, o.max_concurrent_streams);
  ApplyConnectionLimits(o.connection, builder);
  grpc::ResourceQuota quota("reco_server");
  if (o.resource_quota_bytes > 0) quota.Resize(static_cast<size_t>(o.resource_quota_bytes));
  quota.SetMaxThreads(o.max_sync_threads);
  builder->SetResourceQuota(quota);
}

// Health for the server ("") and for each service by name: a probe that names the
// service it depends on (grpc_health_probe -service=reco.v1.Recommender) gets an
// answer, not NOT_FOUND. SetServingStatus(false) at drain turns them all.
void MarkServing(grpc::HealthCheckServiceInterface* health) {
  health->SetServingStatus(true);
  for (const std::string& service :
       {std::string(v1::Recommender::service_full_name()), std::string(v1::ServerStats::service_full_name())}) {
    health->SetServingStatus(service, true);
  }
}

// Every serving mode, in ServingMode's order.
constexpr ServingMode kServingModes[] = {ServingMode::kHeap,      ServingMode::kReuse,      ServingMode::kArena,
                                         ServingMode::kArenaPool, ServingMode::kArenaAlias, ServingMode::kFragments,
                                         ServingMode::kCeiling};

// How a message mode's build takes the catalogue's items: arena_alias aliases the
// static sub-messages (on its pooled arenas, which every reply of it is on).
ItemData ItemDataFor(ServingMode mode) {
  return mode == ServingMode::kArenaAlias ? ItemData::kAliased : ItemData::kCopied;
}

}  // namespace

std::string ServingApiName(ServingApi api) { return api == ServingApi::kAsync ? "async" : "callback"; }

bool ParseServingApi(absl::string_view name, ServingApi* api) {
  for (ServingApi a : {ServingApi::kCallback, ServingApi::kAsync}) {
    if (ServingApiName(a) == name) {
      *api = a;
      return true;
    }
  }
  return false;
}

int DefaultAsyncThreads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

std::optional<MemoryMode> MessageMemoryMode(ServingMode mode) {
  switch (mode) {
    case ServingMode::kHeap:
      return MemoryMode::kHeap;
    case ServingMode::kReuse:
      return MemoryMode::kReuse;
    case ServingMode::kArena:
      return MemoryMode::kArena;
    case ServingMode::kArenaPool:
    case ServingMode::kArenaAlias:
      return MemoryMode::kArenaPool;
    case ServingMode::kFragments:
    case ServingMode::kCeiling:
      break;
  }
  return std::nullopt;
}

ServingMode ServingModeFor(MemoryMode mode) {
  switch (mode) {
    case MemoryMode::kHeap:
      return ServingMode::kHeap;
    case MemoryMode::kReuse:
      return ServingMode::kReuse;
    case MemoryMode::kArena:
      return ServingMode::kArena;
    case MemoryMode::kArenaPool:
      break;
  }
  return ServingMode::kArenaPool;
}

std::string ServingModeName(ServingMode mode) {
  if (mode == ServingMode::kArenaAlias) return "arena_alias";
  if (mode == ServingMode::kFragments) return "fragments";
  if (mode == ServingMode::kCeiling) return "ceiling";
  return std::string(MemoryModeName(*MessageMemoryMode(mode)));
}

bool ParseServingMode(absl::string_view name, ServingMode* mode) {
  for (ServingMode m : kServingModes) {
    if (ServingModeName(m) == name) {
      *mode = m;
      return true;
    }
  }
  return false;
}

const std::vector<std::string>& RequestServingModes() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (MemoryMode mode : AllMemoryModes()) v->emplace_back(MemoryModeName(mode));
    v->push_back(ServingModeName(ServingMode::kArenaAlias));
    v->push_back("fragments");
    return v;
  }();
  return *names;
}

absl::StatusOr<std::unique_ptr<RecoServer>> RecoServer::Start(const ServerOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  auto parts = std::make_unique<Parts>();
  parts->options = options;
  parts->catalogue = Catalogue::Shared(options.catalogue);
  parts->meter = std::make_unique<RpcMeter>(options.measure_phases, options.store.max_idle);
  parts->trimmer = std::make_unique<MemoryTrimmer>(options.trim, AllocationCounter::MallocName());

  grpc::EnableDefaultHealthCheckService(true);
  // The plugin is process-wide in gRPC 1.51: once initialised, every server built
  // after it serves reflection. Without --reflection it is never initialised here.
  if (options.reflection) grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  CallReservations* reservations = parts->InstallReplyBudget(&builder);
  parts->MakeService(reservations);
  parts->snapshotter = std::make_unique<StatsSnapshotter>(
      ServingModeName(options.mode),
      StatsSnapshotter::Sources{parts->meter->recorder(), parts->store.get(), parts->budget.get(), reservations,
                                parts->trimmer.get(), parts->catalogue.get()});
  parts->stats = std::make_unique<StatsService>(parts->snapshotter.get(), options.allow_stats_reset);
  // Bound before the gRPC port, so a metrics port that cannot be had leaves nothing
  // started behind; until the server serves, a scrape reads zeros.
  if (!options.metrics_listen.empty()) {
    StatsSnapshotter* snapshotter = parts->snapshotter.get();
    auto metrics = MetricsEndpoint::Start(
        options.metrics_listen, [snapshotter] { return snapshotter->SinceStart(); }, options.metrics_allow);
    if (!metrics.ok()) return metrics.status();
    parts->metrics = *std::move(metrics);
  }

  if (absl::Status s = parts->Listen(&builder); !s.ok()) return s;
  ApplyTransportLimits(options, &builder);
  parts->RegisterServices(&builder);
  if (absl::Status s = parts->StartServing(&builder); !s.ok()) return s;
  return std::unique_ptr<RecoServer>(new RecoServer(std::move(parts)));
}

// The reply budget, when it is on (never for the ceiling: it builds nothing). Its
// per-call side, CallReservations, becomes the builder's context allocator, owned by
// the gRPC server from then on. Null when there is no budget.
CallReservations* RecoServer::Parts::InstallReplyBudget(grpc::ServerBuilder* builder) {
  if (options.mode == ServingMode::kCeiling || options.inflight_budget_bytes == 0) return nullptr;
  budget = std::make_unique<ReplyBudget>(options.inflight_budget_bytes, options.max_reply_bytes);
  auto contexts = std::make_unique<CallReservations>(
      budget.get(), ReservationLimits{options.max_connection_budget_share, options.max_reply_hold,
                                      options.max_client_budget_share, options.client_header});
  CallReservations* reservations = contexts.get();
  builder->SetContextAllocator(std::move(contexts));
  return reservations;
}

// The service that answers Recommend in options.mode, and the store the memory modes
// build in.
void RecoServer::Parts::MakeService(CallReservations* reservations) {
  if (options.mode == ServingMode::kCeiling) {
    // Nothing to place: one reply, serialized once; no store, no allocator, no budget.
    auto ceiling = std::make_unique<CeilingService>(*catalogue, options.ceiling_request, meter.get());
    if (options.api == ServingApi::kAsync) {
      async_raw = std::make_unique<AsyncRawRecommender>(
          [ceiling = ceiling.get()](grpc::ServerContext*, const grpc::ByteBuffer*, grpc::ByteBuffer* response,
                                    CallReservations::Hold*) { return ceiling->RecommendAsync(response); });
    }
    recommend = std::move(ceiling);
    return;
  }
  if (options.mode == ServingMode::kFragments) {
    // No messages at all: the reply's bytes are spliced (fragments_service.h).
    auto fragments = std::make_unique<FragmentsService>(catalogue.get(), meter.get(), reservations,
                                                        options.check_every_items, options.fragments_copy_below_bytes);
    if (options.api == ServingApi::kAsync) {
      async_raw = std::make_unique<AsyncRawRecommender>(
          [fragments = fragments.get()](grpc::ServerContext* context, const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response, CallReservations::Hold* hold) {
            return fragments->RecommendAsync(context, request, response, hold);
          });
    }
    recommend = std::move(fragments);
    return;
  }
  // heap is gRPC's default path: no store, no allocator. The others install the
  // store's allocator (the pattern in patterns/), wrapped by the meter when measuring.
  const MemoryMode memory = *MessageMemoryMode(options.mode);
  if (memory != MemoryMode::kHeap) store = MakeMessageStore(memory, options.store);
  RecommendAllocator* allocator = store != nullptr ? store->allocator() : nullptr;
  if (options.api == ServingApi::kAsync) {
    MakeAsyncService(allocator, reservations);
    return;
  }
  recommend = std::make_unique<RecommenderService>(catalogue.get(), meter->Wrap(allocator), meter.get(), reservations,
                                                   options.check_every_items, ItemDataFor(options.mode));
}

// --api async: the same allocator, measured alike; heap gets one that news the
// messages (the async API has no default path).
void RecoServer::Parts::MakeAsyncService(RecommendAllocator* allocator, CallReservations* reservations) {
  if (allocator == nullptr) {
    heap_allocator = std::make_unique<HeapRecommendAllocator>();
    allocator = heap_allocator.get();
  }
  async_recommend =
      std::make_unique<AsyncRecommender>(catalogue.get(), meter->Wrap(allocator), meter.get(), reservations,
                                         options.check_every_items, ItemDataFor(options.mode));
}

// One Recommend call armed on `queue`, on its serving thread.
void RecoServer::Parts::ArmAsync(patterns::ServingQueue* queue) {
  if (async_recommend != nullptr) {
    async_recommend->Arm(queue);
  } else {
    async_raw->Arm(queue);
  }
}

// The insecure port is our own ConnectionAcceptor, bound here and started once the
// server is: gRPC 1.51's listener stops for good after one EMFILE
// (connection_acceptor.h). TLS keeps gRPC's listener, which sets `port` at start.
absl::Status RecoServer::Parts::Listen(grpc::ServerBuilder* builder) {
  // gRPC sets SO_REUSEPORT by default on Linux: a second server could then bind a
  // port already in use and silently share its traffic. A busy port must be an error.
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  if (!options.tls_cert_pem.empty()) {
    builder->AddListeningPort(options.listen, ListeningCredentials(options), &port);
    return absl::OkStatus();
  }
  const ConnectionCaps caps = ResolveConnectionCaps(options.connection, options.max_concurrent_streams);
  AcceptorOptions acceptor_options;
  acceptor_options.handshake_timeout = options.connection.handshake_timeout;
  acceptor_options.max_descriptors = caps.descriptors;
  acceptor_options.max_connections = caps.connections;
  acceptor_options.max_per_source = caps.per_source;
  absl::StatusOr<std::unique_ptr<ConnectionAcceptor>> bound =
      ConnectionAcceptor::Listen(options.listen, acceptor_options);
  if (!bound.ok()) return bound.status();
  acceptor = *std::move(bound);
  return absl::OkStatus();
}

void RecoServer::Parts::RegisterServices(grpc::ServerBuilder* builder) {
  // Only the message modes get the serialize timer: the ceiling and fragments have
  // nothing to serialize, and the interceptor's per-RPC bookkeeping would cost them.
  // Nor --api async: Finish() serializes before any interceptor runs (async_recommender.h).
  if (MessageMemoryMode(options.mode).has_value() && options.api == ServingApi::kCallback) {
    if (auto timer = meter->NewSerializeTimer(); timer != nullptr) {
      std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> factories;
      factories.push_back(std::move(timer));
      builder->experimental().SetInterceptorCreators(std::move(factories));
    }
  }
  if (options.api == ServingApi::kAsync) {
    builder->RegisterService(async_recommend != nullptr ? async_recommend->service() : async_raw->service());
    serving = std::make_unique<patterns::ServingThreads>(builder, options.async_threads);
  } else {
    builder->RegisterService(recommend.get());
  }
  builder->RegisterService(stats.get());
  unserved = std::make_unique<UnservedMethodService>(
      std::vector<std::string>{v1::Recommender::service_full_name(), v1::ServerStats::service_full_name(),
                               "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"});
  builder->RegisterCallbackGenericService(unserved.get());
}

// Builds and starts the gRPC server, then the acceptor that feeds it; health says
// SERVING once both are up.
absl::Status RecoServer::Parts::StartServing(grpc::ServerBuilder* builder) {
  server = builder->BuildAndStart();
  if (server != nullptr && acceptor != nullptr) {
    acceptor->Start(server.get());
    port = acceptor->port();
  }
  if (server == nullptr || port == 0) {
    if (server != nullptr) server->Shutdown();
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", options.listen, ": the port is in use or the address is not a local HOST:PORT",
        options.tls_cert_pem.empty() ? "" : ", or the TLS certificate and key are not PEM or do not match"));
  }
  if (serving != nullptr) serving->Start([this](patterns::ServingQueue* queue) { ArmAsync(queue); });
  MarkServing(server->GetHealthCheckService());
  return absl::OkStatus();
}

RecoServer::RecoServer(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

RecoServer::~RecoServer() {
  Shutdown(absl::ZeroDuration());
  Wait();
}

int RecoServer::port() const { return parts_->port; }

const ServerOptions& RecoServer::options() const { return parts_->options; }

v1::StatsSnapshot RecoServer::Stats(bool reset) { return parts_->snapshotter->Snapshot(reset); }

v1::StatsSnapshot RecoServer::SinceStart() { return parts_->snapshotter->SinceStart(); }

int RecoServer::metrics_port() const { return parts_->metrics == nullptr ? 0 : parts_->metrics->port(); }

void RecoServer::BeginDrain() { parts_->server->GetHealthCheckService()->SetServingStatus(false); }

void RecoServer::Shutdown(absl::Duration deadline) {
  std::lock_guard<std::mutex> lock(shutdown_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  // Health probes see NOT_SERVING while in-flight RPCs drain.
  parts_->server->GetHealthCheckService()->SetServingStatus(false);
  if (parts_->acceptor != nullptr) parts_->acceptor->Stop();  // no new connections
  const auto until = std::chrono::system_clock::now() + absl::ToChronoNanoseconds(deadline);
  // --api async: the server's Shutdown, then the queues; returns once every call has
  // ended and given its messages and reservation back.
  if (parts_->serving != nullptr) {
    parts_->serving->Stop(parts_->server.get(), until);
  } else {
    parts_->server->Shutdown(until);
  }
}

void RecoServer::Wait() { parts_->server->Wait(); }

}  // namespace reco
