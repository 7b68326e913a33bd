// See reco_server.h.
#include "server/reco_server.h"

#include <chrono>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>

#include "absl/strings/str_cat.h"
#include "core/request.h"
#include "server/ceiling_service.h"
#include "server/fragments_service.h"
#include "core/allocation_counter.h"
#include "core/reply_memory.h"
#include "server/call_reservations.h"
#include "server/connection_acceptor.h"
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
  std::unique_ptr<MessageStore> store;  // null in heap mode: gRPC owns the messages
  std::unique_ptr<RpcMeter> meter;      // after the store: its allocator wraps the store's
  std::unique_ptr<ReplyBudget> budget;  // null when off; the server's CallReservations use it
  std::unique_ptr<MemoryTrimmer> trimmer;
  std::unique_ptr<StatsSnapshotter> snapshotter;
  std::unique_ptr<RecommenderService> recommender;
  std::unique_ptr<FragmentsService> fragments;  // instead of recommender in fragments mode
  std::unique_ptr<CeilingService> ceiling;      // instead of recommender in ceiling mode
  std::unique_ptr<StatsService> stats;
  std::unique_ptr<UnservedMethodService> unserved;  // every path the services above do not serve
  std::unique_ptr<grpc::Server> server;
  // Insecure ports only: accepts for `server`, so it stops (and goes) before it.
  std::unique_ptr<ConnectionAcceptor> acceptor;
  int port = 0;
};

namespace {

// --max_reply_hold's range when on: under 100 ms a reply on a busy machine could be
// cancelled while it is still being sent; over an hour it would not bound anything.
constexpr absl::Duration kMinReplyHold = absl::Milliseconds(100);
constexpr absl::Duration kMaxReplyHold = absl::Hours(1);

absl::Status CheckOptions(const ServerOptions& o) {
  if (absl::Status s = CheckListenAddress(o.listen); !s.ok()) return s;
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
  if (o.resource_quota_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("resource_quota_bytes: ", o.resource_quota_bytes, " is negative"));
  }
  if (o.inflight_budget_bytes != 0) {
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
      return absl::InvalidArgumentError(absl::StrCat("max_connection_budget_share: ", o.max_connection_budget_share,
                                                     " is not in (0, 1]"));
    }
    if (o.max_reply_hold < absl::ZeroDuration() ||
        (o.max_reply_hold > absl::ZeroDuration() && o.max_reply_hold < kMinReplyHold) ||
        o.max_reply_hold > kMaxReplyHold) {
      return absl::InvalidArgumentError(absl::StrCat("max_reply_hold: ", absl::FormatDuration(o.max_reply_hold),
                                                     " is not 0 (never cancel) or between ",
                                                     absl::FormatDuration(kMinReplyHold), " and ",
                                                     absl::FormatDuration(kMaxReplyHold)));
    }
  }
  if (absl::Status s = ValidateCatalogueOptions(o.catalogue); !s.ok()) return s;
  if (o.trim.interval < absl::ZeroDuration()) return absl::InvalidArgumentError("trim_interval: negative");
  if (o.tls_cert_pem.empty() != o.tls_key_pem.empty()) {
    return absl::InvalidArgumentError(o.tls_cert_pem.empty() ? "tls_key_pem without tls_cert_pem: give both or neither"
                                                             : "tls_cert_pem without tls_key_pem: give both or neither");
  }
  if (o.reply_path == ReplyPath::kCeiling) {
    if (absl::Status s = ValidateRequest(o.ceiling_request); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("ceiling_request: ", s.message()));
    }
  } else if (o.reply_path == ReplyPath::kMessages && o.mode == MemoryMode::kArenaPool && o.store.initial_block_bytes == 0) {
    return absl::InvalidArgumentError("initial_block_bytes: must be positive in arena_pool mode");
  }
  return absl::OkStatus();
}

// Insecure by default; with a certificate and key, TLS without client certificates.
std::shared_ptr<grpc::ServerCredentials> ListeningCredentials(const ServerOptions& o) {
  if (o.tls_cert_pem.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({o.tls_key_pem, o.tls_cert_pem});
  return grpc::SslServerCredentials(ssl);
}

}  // namespace

std::string ServingModeName(const ServerOptions& options) {
  switch (options.reply_path) {
    case ReplyPath::kCeiling: return "ceiling";
    case ReplyPath::kFragments: return "fragments";
    case ReplyPath::kMessages: break;
  }
  return std::string(MemoryModeName(options.mode));
}

bool ParseServingMode(absl::string_view name, ServerOptions* options) {
  if (name == "ceiling") {
    options->reply_path = ReplyPath::kCeiling;
  } else if (name == "fragments") {
    options->reply_path = ReplyPath::kFragments;
  } else if (ParseMemoryMode(name, &options->mode)) {
    options->reply_path = ReplyPath::kMessages;
  } else {
    return false;
  }
  return true;
}

const std::vector<std::string>& RequestServingModes() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (MemoryMode mode : AllMemoryModes()) v->emplace_back(MemoryModeName(mode));
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
  const bool ceiling = options.reply_path == ReplyPath::kCeiling;
  if (ceiling) {
    // Nothing to place: one reply, serialized once; no store, no allocator, no budget.
    parts->ceiling = std::make_unique<CeilingService>(*parts->catalogue, options.ceiling_request,
                                                      parts->meter.get());
    parts->snapshotter = std::make_unique<StatsSnapshotter>(
        "ceiling", StatsSnapshotter::Sources{parts->meter->recorder(), nullptr, nullptr, nullptr, parts->trimmer.get(),
                                             parts->catalogue.get()});
  } else {
    CallReservations* reservations = nullptr;
    if (options.inflight_budget_bytes != 0) {
      parts->budget = std::make_unique<ReplyBudget>(options.inflight_budget_bytes, options.max_reply_bytes);
      auto contexts = std::make_unique<CallReservations>(
          parts->budget.get(), ReservationLimits{options.max_connection_budget_share, options.max_reply_hold});
      reservations = contexts.get();  // owned by the gRPC server from here on
      builder.SetContextAllocator(std::move(contexts));
    }
    if (options.reply_path == ReplyPath::kFragments) {
      // No messages at all: the reply's bytes are spliced (fragments_service.h).
      parts->fragments = std::make_unique<FragmentsService>(parts->catalogue.get(), parts->meter.get(),
                                                            reservations, options.check_every_items,
                                                            options.fragments_copy_below_bytes);
    } else {
      // heap is gRPC's default path: no store, no allocator. The others install the
      // store's allocator (the pattern in patterns/), wrapped by the meter when measuring.
      if (options.mode != MemoryMode::kHeap) parts->store = MakeMessageStore(options.mode, options.store);
      RecommendAllocator* allocator = parts->store != nullptr ? parts->store->allocator() : nullptr;
      parts->recommender = std::make_unique<RecommenderService>(
          parts->catalogue.get(), parts->meter->Wrap(allocator), parts->meter.get(), reservations,
          options.check_every_items);
    }
    parts->snapshotter = std::make_unique<StatsSnapshotter>(
        ServingModeName(options),
        StatsSnapshotter::Sources{parts->meter->recorder(), parts->store.get(), parts->budget.get(), reservations,
                                  parts->trimmer.get(), parts->catalogue.get()});
  }
  parts->stats = std::make_unique<StatsService>(parts->snapshotter.get(), options.allow_stats_reset);

  // gRPC sets SO_REUSEPORT by default on Linux: a second server could then bind a
  // port already in use and silently share its traffic. A busy port must be an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // The insecure port is our own ConnectionAcceptor: gRPC 1.51's listener stops for
  // good after one EMFILE (connection_acceptor.h). TLS keeps gRPC's listener.
  std::unique_ptr<ConnectionAcceptor> acceptor;
  if (options.tls_cert_pem.empty()) {
    const int64_t cap = options.connection.max_connections != 0 ? options.connection.max_connections
                                                                : DefaultMaxConnections();
    absl::StatusOr<std::unique_ptr<ConnectionAcceptor>> bound =
        ConnectionAcceptor::Listen(options.listen, AcceptorOptions{options.connection.handshake_timeout, cap});
    if (!bound.ok()) return bound.status();
    acceptor = *std::move(bound);
  } else {
    builder.AddListeningPort(options.listen, ListeningCredentials(options), &parts->port);
  }
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_concurrent_streams);
  ApplyConnectionLimits(options.connection, &builder);
  if (options.resource_quota_bytes > 0) {
    grpc::ResourceQuota quota("reco_server");
    quota.Resize(static_cast<size_t>(options.resource_quota_bytes));
    builder.SetResourceQuota(quota);
  }
  // Only the message modes get the serialize timer: the ceiling and fragments have
  // nothing to serialize, and the interceptor's per-RPC bookkeeping would cost them.
  if (auto timer = parts->meter->NewSerializeTimer();
      timer != nullptr && options.reply_path == ReplyPath::kMessages) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> factories;
    factories.push_back(std::move(timer));
    builder.experimental().SetInterceptorCreators(std::move(factories));
  }
  if (ceiling) {
    builder.RegisterService(parts->ceiling.get());
  } else if (parts->fragments != nullptr) {
    builder.RegisterService(parts->fragments.get());
  } else {
    builder.RegisterService(parts->recommender.get());
  }
  builder.RegisterService(parts->stats.get());
  parts->unserved = std::make_unique<UnservedMethodService>(std::vector<std::string>{
      v1::Recommender::service_full_name(), v1::ServerStats::service_full_name(), "grpc.health.v1.Health",
      "grpc.reflection.v1alpha.ServerReflection"});
  builder.RegisterCallbackGenericService(parts->unserved.get());

  parts->server = builder.BuildAndStart();
  if (parts->server != nullptr && acceptor != nullptr) {
    acceptor->Start(parts->server.get());
    parts->port = acceptor->port();
    parts->acceptor = std::move(acceptor);
  }
  if (parts->server == nullptr || parts->port == 0) {
    if (parts->server != nullptr) parts->server->Shutdown();
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", options.listen, ": the port is in use or the address is not a local HOST:PORT",
        options.tls_cert_pem.empty() ? "" : ", or the TLS certificate and key are not PEM or do not match"));
  }
  // Health for the server ("") and for each service by name: a probe that names the
  // service it depends on (grpc_health_probe -service=reco.v1.Recommender) gets an
  // answer, not NOT_FOUND. SetServingStatus(false) at drain turns them all.
  grpc::HealthCheckServiceInterface* health = parts->server->GetHealthCheckService();
  health->SetServingStatus(true);
  for (const std::string& service : {std::string(v1::Recommender::service_full_name()),
                                     std::string(v1::ServerStats::service_full_name())}) {
    health->SetServingStatus(service, true);
  }
  return std::unique_ptr<RecoServer>(new RecoServer(std::move(parts)));
}

RecoServer::RecoServer(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

RecoServer::~RecoServer() {
  Shutdown(absl::ZeroDuration());
  Wait();
}

int RecoServer::port() const { return parts_->port; }

v1::StatsSnapshot RecoServer::Stats(bool reset) { return parts_->snapshotter->Snapshot(reset); }

void RecoServer::BeginDrain() { parts_->server->GetHealthCheckService()->SetServingStatus(false); }

void RecoServer::Shutdown(absl::Duration deadline) {
  std::lock_guard<std::mutex> lock(shutdown_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  // Health probes see NOT_SERVING while in-flight RPCs drain.
  parts_->server->GetHealthCheckService()->SetServingStatus(false);
  if (parts_->acceptor != nullptr) parts_->acceptor->Stop();  // no new connections
  parts_->server->Shutdown(std::chrono::system_clock::now() + absl::ToChronoNanoseconds(deadline));
}

void RecoServer::Wait() { parts_->server->Wait(); }

}  // namespace reco
