// ConnectionAcceptor: reco_server's own listening socket for the insecure port. It
// accepts connections on a thread of its own and hands each to gRPC
// (grpc::AddInsecureChannelFromFd), so that running out of descriptors does not
// kill the listener.
//
// Why: gRPC 1.51's listener (tcp_server_posix.cc) treats an accept4() failure with
// EMFILE as fatal for that port -- it logs "Failed accept4: Too many open files" and
// never accepts again, though the process keeps running and reports nothing else.
// Under `ulimit -n 64`, 120 idle connections then closed left a server that answered
// no new connection (every call DEADLINE_EXCEEDED). This acceptor instead keeps a
// spare descriptor: on EMFILE/ENFILE it frees the spare, accepts the waiting
// connection, closes it at once (the client sees the connection end and may retry),
// takes the spare back, and goes on accepting.
//
// The connections it hands over get the server's channel arguments (idle, age,
// keepalive, streams, message size) but no handshake phase: there is none on an
// insecure port, and a silent connection is closed by max_connection_idle. TLS ports
// keep gRPC's own listener (see docs/server.md).
//
// Example:
//   auto acceptor = reco::ConnectionAcceptor::Listen("127.0.0.1:0");  // binds now
//   if (!acceptor.ok()) ...;                       // e.g. port in use
//   int port = (*acceptor)->port();
//   std::unique_ptr<grpc::Server> server = builder.BuildAndStart();  // no ports of its own
//   (*acceptor)->Start(server.get());              // accepting from now on
//   ...
//   (*acceptor)->Stop();                           // before server->Shutdown()
//
// Thread-safety: Start and Stop from one thread; Stop (or the destructor) joins the
// accepting thread and closes the socket. `server` must outlive Stop().
#ifndef ARENA_GRPC_SERVER_CONNECTION_ACCEPTOR_H_
#define ARENA_GRPC_SERVER_CONNECTION_ACCEPTOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"

namespace reco {

class ConnectionAcceptor {
 public:
  // Binds and listens on HOST:PORT (port 0: a free one); no SO_REUSEPORT, so a busy
  // port is an error.
  static absl::StatusOr<std::unique_ptr<ConnectionAcceptor>> Listen(const std::string& listen);
  ~ConnectionAcceptor();

  int port() const { return port_; }
  void Start(grpc::Server* server);
  void Stop();
  // Connections closed at once for want of a descriptor, since Start.
  uint64_t shed() const { return shed_.load(); }

  ConnectionAcceptor(const ConnectionAcceptor&) = delete;
  ConnectionAcceptor& operator=(const ConnectionAcceptor&) = delete;

 private:
  ConnectionAcceptor(int listen_fd, int port, int wake_read, int wake_write);
  void Run(grpc::Server* server);
  void Shed();

  const int listen_fd_;
  const int port_;
  const int wake_read_, wake_write_;  // a pipe: Stop() wakes the poll
  int spare_fd_ = -1;                 // /dev/null, given up on EMFILE
  std::atomic<uint64_t> shed_{0};
  std::thread thread_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_CONNECTION_ACCEPTOR_H_
