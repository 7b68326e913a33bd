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
// The preface gate. gRPC runs no handshake on a descriptor handed to it, so a client
// that connects and says nothing would hold its socket until max_connection_idle (10
// minutes): silent connections up to the open-files limit (docs/server.md) locked every
// new client out. So a new connection stays here until the 24 bytes of the HTTP/2
// client preface have arrived (peeked, not read: gRPC reads them) and is closed if
// they have not within `handshake_timeout`. A connection that sent part of them is
// looked at again every 20 ms, not spun on.
//
// The connection cap. Descriptors are numbered lowest-free first, so an accepted
// descriptor numbered N means at least N are open: one numbered `max_descriptors` or
// more is closed at once (with a log line at most once a second), keeping the rest of
// the open-files limit for the server's own needs, well before accept() fails.
//
// The connections cap. At most `max_connections` connections are held, waiting or
// handed over; past it a new one is closed at once, as at the descriptor cap. This is
// what bounds the streams gRPC holds (connection_limits.h, stream_memory_bytes).
//
// Per source. One address may hold at most `max_per_source` connections open
// (waiting or handed over): past it, its new ones are closed at once, so that one
// host cannot take the whole cap. The acceptor learns that gRPC closed a connection
// it handed over by looking, once a second, whether its descriptor still names the
// same socket (fstat's inode): gRPC offers no close callback.
//
// Near the cap (7/8 of the smaller cap open), connections handed over that have
// neither sent nor received a byte for `handshake_timeout` (TCP_INFO) are shut down
// (shutdown(2), gRPC then closes them), oldest first, at most 4 passes a second: a
// client that sent its preface and nothing since holds no socket for long when
// sockets run short. An idle gRPC channel loses its connection too and reconnects
// on its next call.
//
// The connections it hands over get the server's channel arguments (idle, age,
// keepalive, streams, message size). TLS ports keep gRPC's own listener, whose
// handshake timeout covers them (see docs/server.md).
//
// Memory: at most `max_waiting` connections waiting for their preface (the oldest is
// closed to make room), one small entry each; one entry (descriptor, inode, source)
// per connection handed over and one count per source address with one open.
//
// Example:
//   auto acceptor = reco::ConnectionAcceptor::Listen("127.0.0.1:0", {absl::Seconds(5), 20000});  // binds now
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

#include <vector>

#include <grpcpp/server.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace reco {

struct AcceptorOptions {
  absl::Duration handshake_timeout = absl::Seconds(5);  // for the preface to arrive
  int64_t max_descriptors = 0;                          // the descriptor cap; 0: none (EMFILE still sheds)
  size_t max_waiting = 4096;                            // connections waiting for their preface at most
  int64_t max_per_source = 0;                           // connections open from one address at most; 0: no limit
  int64_t max_connections = 0;                          // connections held (waiting or handed over) at most; 0: none
};

class ConnectionAcceptor {
 public:
  // Binds and listens on HOST:PORT (port 0: a free one); no SO_REUSEPORT, so a busy
  // port is an error.
  static absl::StatusOr<std::unique_ptr<ConnectionAcceptor>> Listen(const std::string& listen, AcceptorOptions options);
  ~ConnectionAcceptor();

  int port() const { return port_; }
  void Start(grpc::Server* server);
  void Stop();
  // Connections closed at once for want of a descriptor, or at the cap, since Start.
  uint64_t shed() const { return shed_.load(); }
  // Connections closed because their preface did not arrive in time, since Start.
  uint64_t silent_closed() const { return silent_closed_.load(); }
  // New connections closed at once because their address held max_per_source.
  uint64_t source_shed() const { return source_shed_.load(); }
  // Idle connections handed over that were shut down near the cap.
  uint64_t idle_shut() const { return idle_shut_.load(); }
  // Looks at the connections handed over (once a second while there are any).
  uint64_t sweeps() const { return sweeps_.load(); }

  ConnectionAcceptor(const ConnectionAcceptor&) = delete;
  ConnectionAcceptor& operator=(const ConnectionAcceptor&) = delete;

 private:
  // A connection waiting for its preface (the accepting thread's only).
  struct Waiting {
    int fd;
    absl::Time deadline;     // closed if its preface is not here by then
    absl::Time quiet_until;  // part of the preface came: look again from then
    std::string source;      // the peer's address, without its port
  };
  // A connection handed to gRPC, as far as the acceptor can tell still open.
  struct HandedOver {
    int fd;
    uint64_t inode;  // its socket's: the descriptor may be reused once gRPC closes it
    std::string source;
    bool shut = false;  // shut down as idle near the cap; gRPC closes it
  };

  ConnectionAcceptor(int listen_fd, int port, int wake_read, int wake_write, AcceptorOptions options);
  void Run(grpc::Server* server);
  void AcceptAll();
  // Hands `w` to gRPC when its preface is here, or closes it; false to keep waiting.
  bool Settle(Waiting& w, grpc::Server* server, absl::Time now);
  void Shed();
  // Closes `w`, which waited for its preface, and forgets it.
  void CloseWaiting(const Waiting& w);
  void Forget(const std::string& source);
  // Forgets the connections gRPC closed; near the cap, shuts down idle ones.
  void Sweep(absl::Time now);
  // Connections held now, waiting or handed over.
  int64_t Held() const { return static_cast<int64_t>(handed_over_.size() + waiting_.size()); }
  // The smaller of the two caps, in connections; 0: none.
  int64_t Cap() const;
  bool NearCap() const;
  void LogAtMostOncePerSecond(const std::string& line);

  const int listen_fd_;
  const int port_;
  const int wake_read_, wake_write_;  // a pipe: Stop() wakes the poll
  const AcceptorOptions options_;
  int spare_fd_ = -1;  // /dev/null, given up on EMFILE
  std::vector<Waiting> waiting_;
  std::vector<HandedOver> handed_over_;                   // oldest first
  absl::flat_hash_map<std::string, int64_t> per_source_;  // connections open, waiting or handed over
  absl::Time next_sweep_ = absl::InfinitePast();
  absl::Time last_log_ = absl::InfinitePast();
  std::atomic<uint64_t> shed_{0}, silent_closed_{0}, source_shed_{0}, idle_shut_{0}, sweeps_{0};
  // Handed over and shut down, not yet seen closed: room under max_connections already.
  int64_t shut_down_ = 0;
  std::thread thread_;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_CONNECTION_ACCEPTOR_H_
