// SPDX-License-Identifier: Apache-2.0
// inbox_server: the example Inbox service in one of three variants of one handler.
// Flags and wiring only; the server is InboxServer (inbox_server.h).
//
//   inbox_server --variant pooled_arena --listen 127.0.0.1:0
//   -> inbox_server (pooled_arena) listening on 127.0.0.1:PORT
// SIGTERM or SIGINT: shuts down, exit 0. A bad flag exits 2 naming it; an address
// that cannot be bound exits 1.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "inbox_server.h"

ABSL_FLAG(std::string, variant, "pooled_arena",
          "how replies are made: heap (gRPC's default messages), pooled_arena (patterns/pooled_arena_allocator.h) "
          "or spliced (threads serialized at start-up, patterns/spliced_reply.h)");
ABSL_FLAG(std::string, listen, "127.0.0.1:50071", "HOST:PORT to listen on; port 0 picks a free port");

namespace {

[[noreturn]] void BadFlag(const std::string& message) {
  std::cerr << "inbox_server: " << message << "\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "The example Inbox gRPC service (inbox.v1.Inbox/ListThreads) in one of three variants.\n"
      "  inbox_server --variant pooled_arena --listen 127.0.0.1:0");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) BadFlag(std::string("unexpected argument '") + rest[1] + "' (flags only; see --help)");
  const std::optional<inbox::Variant> variant = inbox::ParseVariant(absl::GetFlag(FLAGS_variant));
  if (!variant) BadFlag("--variant=" + absl::GetFlag(FLAGS_variant) + " is not one of heap, pooled_arena, spliced");
  const std::string listen = absl::GetFlag(FLAGS_listen);
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 || !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    BadFlag("--listen=" + listen + " is not HOST:PORT (a port from 0 to 65535)");
  }

  // Block the stop signals before gRPC starts its threads (they inherit the mask), so
  // that only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto server = inbox::InboxServer::Start(*variant, listen);
  if (!server.ok()) {
    std::cerr << "inbox_server: " << server.status().message() << "\n";
    return 1;
  }
  std::cout << "inbox_server (" << inbox::VariantName(*variant) << ") listening on " << listen.substr(0, colon) << ":"
            << (*server)->port() << std::endl;  // endl: flushed for scripts

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server->reset();  // shuts down
  std::cout << "inbox_server: stopped on signal " << signal_number << std::endl;
  return 0;
}
