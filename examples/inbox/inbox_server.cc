// SPDX-License-Identifier: Apache-2.0
// See inbox_server.h.
#include "inbox_server.h"

#include <chrono>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include "absl/strings/str_cat.h"
#include "server_stats.h"

namespace inbox {

std::optional<Variant> ParseVariant(absl::string_view name) {
  for (Variant v : {Variant::kHeap, Variant::kPooledArena, Variant::kSpliced}) {
    if (name == VariantName(v)) return v;
  }
  return std::nullopt;
}

const char* VariantName(Variant variant) {
  switch (variant) {
    case Variant::kHeap:
      return "heap";
    case Variant::kPooledArena:
      return "pooled_arena";
    case Variant::kSpliced:
      return "spliced";
  }
  return "unknown";
}

absl::StatusOr<std::unique_ptr<InboxServer>> InboxServer::Start(Variant variant, const std::string& listen) {
  std::unique_ptr<InboxServer> s(new InboxServer(variant));
  if (variant == Variant::kSpliced) {
    s->spliced_threads_ = std::make_unique<SplicedThreads>();
    s->service_ = std::make_unique<SplicedInboxService>(s->spliced_threads_.get());
  } else {
    auto service = std::make_unique<MessageInboxService>();
    if (variant == Variant::kPooledArena) {
      s->allocator_ = std::make_unique<PooledThreadPageAllocator>(PooledArenaOptionsForInbox());
      service->SetMessageAllocatorFor_ListThreads(s->allocator_.get());
    }
    s->service_ = std::move(service);
  }

  grpc::reflection::InitProtoReflectionServerBuilderPlugin();  // before the builder: it adds itself there
  grpc::ServerBuilder builder;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &s->port_);
  builder.SetMaxReceiveMessageSize(kMaxRequestBytes);
  // gRPC sets SO_REUSEPORT on Linux: a second server on a busy port would start and
  // share the port's calls with the first. Refuse the port instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(s->service_.get());
  // reco.v1.ServerStats for reco_load: allocations, CPU and memory per RPC, and the
  // pool's leases that found it empty (a row of reco_load's report).
  reco::ServerStatsOptions stats;
  stats.label = VariantName(variant);
  if (PooledThreadPageAllocator* pool = s->allocator_.get(); pool != nullptr) {
    stats.pool = [pool] {
      const reco::patterns::PooledArenaStats p = pool->stats();
      return reco::PoolCounts{p.allocated, p.released, p.arenas_created, p.unpooled, p.overflows};
    };
  }
  (void)reco::EnableServerStats(builder, stats);  // not OK only for a metrics port, which it has none
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("listen=", listen, ": cannot listen there (a bad or busy address?)"));
  }
  return s;
}

InboxServer::~InboxServer() {
  if (server_ == nullptr) return;
  // Replies are small and built at once: a second is plenty for in-flight calls.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  server_->Wait();
}

}  // namespace inbox
