// SPDX-License-Identifier: Apache-2.0
// InboxServer: the example Inbox service listening, in one of three variants of the
// same handler (inbox_handler.h):
//   heap          MessageInboxService on gRPC's default messages
//   pooled_arena  MessageInboxService with patterns/pooled_arena_allocator.h
//   spliced       SplicedInboxService: threads serialized at start-up, spliced per reply
// Each serves gRPC server reflection, and refuses requests over kMaxRequestBytes.
//
// Memory a client can make it hold: per call, a request of at most kMaxRequestBytes
// and a reply of at most kMaxThreads threads (a larger `threads` is refused
// INVALID_ARGUMENT before anything is built); pooled_arena adds its bounded pool
// (PooledArenaOptionsForInbox: at most 64 arenas of one block each), spliced one
// scratch per gRPC thread and its threads serialized once at start-up. The calls in
// flight are bounded only by gRPC's own limits: this is an example to measure, not a
// server to expose (reco_server's reply budget is what bounds that, docs/server.md).
//
// Example:
//   absl::StatusOr<std::unique_ptr<inbox::InboxServer>> server =
//       inbox::InboxServer::Start(inbox::Variant::kPooledArena, "127.0.0.1:0");
//   // (*server)->port() is the port the OS picked; destroying it shuts it down.
//
// Thread-safety: Start, port() and the destructor from one thread; the server's
// handlers run on gRPC's threads.
#ifndef INBOX_EXAMPLE_INBOX_SERVER_H_
#define INBOX_EXAMPLE_INBOX_SERVER_H_

#include <memory>
#include <optional>
#include <string>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "message_service.h"
#include "spliced_service.h"

namespace inbox {

enum class Variant { kHeap, kPooledArena, kSpliced };

// "heap", "pooled_arena" or "spliced"; nullopt for anything else.
std::optional<Variant> ParseVariant(absl::string_view name);
const char* VariantName(Variant variant);

// Requests are an account, a count, a flag and a token: 4 KiB is far past any real
// one, and a larger one is refused (RESOURCE_EXHAUSTED) before it is parsed.
inline constexpr int kMaxRequestBytes = 4096;

class InboxServer {
 public:
  // Listening on `listen` ("HOST:PORT"; port 0 picks one), or UNAVAILABLE when the
  // address cannot be bound.
  static absl::StatusOr<std::unique_ptr<InboxServer>> Start(Variant variant, const std::string& listen);
  ~InboxServer();  // shuts down: in-flight calls get a short grace, then are cancelled

  int port() const { return port_; }
  Variant variant() const { return variant_; }

 private:
  explicit InboxServer(Variant variant) : variant_(variant) {}

  const Variant variant_;
  // What the server uses must outlive it: declared before server_, destroyed after.
  std::unique_ptr<PooledThreadPageAllocator> allocator_;  // pooled_arena only
  std::unique_ptr<SplicedThreads> spliced_threads_;       // spliced only
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace inbox

#endif  // INBOX_EXAMPLE_INBOX_SERVER_H_
