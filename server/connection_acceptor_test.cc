// ConnectionAcceptor's bounds against silent clients, on 127.0.0.1: connections that
// never send the HTTP/2 preface are closed at the handshake timeout, at most
// `max_waiting` of them wait at once (the oldest is closed to make room), and one that
// sends its preface is handed to gRPC and served. Counts and closes only; the waits
// are bounded.
#include "server/connection_acceptor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "gtest/gtest.h"
#include "server/unserved_method_service.h"

namespace reco {
namespace {

// Connects from `source` (127.0.0.2 stands for another host).
int Connect(int port, const char* source = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from), 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

// Whether the server closed `fd` (EOF or a reset) within `wait`.
bool ClosedByServer(int fd, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
  char byte;
  const ssize_t n = recv(fd, &byte, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

// A gRPC server with no port of its own (the acceptor hands it connections) and one
// callback service, so that it has a completion queue gRPC polls. A generic service
// belongs to one server for good: each gets its own, destroyed after it.
// Waits, at most 10 s, for the acceptor to have counted `n` silent closes: a peer can
// see its connection closed before the acceptor's thread has counted the close.
uint64_t WaitForSilentCloses(const ConnectionAcceptor& acceptor, uint64_t n) {
  for (int i = 0; i < 1000 && acceptor.silent_closed() < n; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return acceptor.silent_closed();
}

struct PortlessServer {
  std::unique_ptr<UnservedMethodService> service = std::make_unique<UnservedMethodService>(std::vector<std::string>{});
  std::unique_ptr<grpc::Server> server = [this] {
    grpc::ServerBuilder builder;
    builder.RegisterCallbackGenericService(service.get());
    return builder.BuildAndStart();
  }();
  ~PortlessServer() { server->Shutdown(); }
};

TEST(ConnectionAcceptorTest, AtMostMaxWaitingSilentConnectionsAreHeldTheOldestGoFirst) {
  PortlessServer portless;
  grpc::Server* server = portless.server.get();
  ASSERT_NE(server, nullptr);
  auto acceptor = ConnectionAcceptor::Listen("127.0.0.1:0", AcceptorOptions{absl::Seconds(30), 0, /*max_waiting=*/8});
  ASSERT_TRUE(acceptor.ok()) << acceptor.status();
  (*acceptor)->Start(server);
  std::vector<int> fds;
  for (int i = 0; i < 20; ++i) {
    fds.push_back(Connect((*acceptor)->port()));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // accepted in this order
  }
  EXPECT_EQ(WaitForSilentCloses(**acceptor, 12), 12u) << "20 silent connections, room for 8";
  for (int i = 0; i < 12; ++i) EXPECT_TRUE(ClosedByServer(fds[i], std::chrono::seconds(5))) << "connection " << i;
  for (int i = 12; i < 20; ++i)
    EXPECT_FALSE(ClosedByServer(fds[i], std::chrono::milliseconds(50))) << "connection " << i;
  (*acceptor)->Stop();
  for (int fd : fds) close(fd);
}

TEST(ConnectionAcceptorTest, SilentConnectionsCloseAtTheTimeoutAndAPrefaceIsHandedOver) {
  PortlessServer portless;
  grpc::Server* server = portless.server.get();
  ASSERT_NE(server, nullptr);
  auto acceptor = ConnectionAcceptor::Listen("127.0.0.1:0", AcceptorOptions{absl::Milliseconds(300), 0, 4096});
  ASSERT_TRUE(acceptor.ok()) << acceptor.status();
  (*acceptor)->Start(server);
  const int silent = Connect((*acceptor)->port());
  const int partial = Connect((*acceptor)->port());
  const int talking = Connect((*acceptor)->port());
  ASSERT_EQ(send(partial, "PRI * HTTP", 10, 0), 10);  // part of the preface, then nothing
  static const char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  ASSERT_EQ(send(talking, kPreface, sizeof kPreface - 1, 0), 24);
  EXPECT_TRUE(ClosedByServer(silent, std::chrono::seconds(10)));
  EXPECT_TRUE(ClosedByServer(partial, std::chrono::seconds(10)));
  EXPECT_EQ(WaitForSilentCloses(**acceptor, 2), 2u);
  // gRPC has the third: it answers the preface with its SETTINGS frame.
  pollfd p{talking, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10000), 1);
  char frame[9];
  ASSERT_EQ(recv(talking, frame, sizeof frame, 0), 9);
  EXPECT_EQ(frame[3], 0x4) << "not a SETTINGS frame";
  (*acceptor)->Stop();
  for (int fd : {silent, partial, talking}) close(fd);
}

// A connection that sent its preface, once gRPC answers it (its SETTINGS frame): true;
// false if the server closed it instead. At most 10 s.
bool HandedToGrpc(int fd) {
  static const char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  if (send(fd, kPreface, sizeof kPreface - 1, MSG_NOSIGNAL) != 24) return false;
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 10000) != 1) return false;
  char frame[9];
  return recv(fd, frame, sizeof frame, 0) == 9 && frame[3] == 0x4;
}

// An acceptor on 127.0.0.1 that lets one address hold `max_per_source` connections,
// started on `server`.
absl::StatusOr<std::unique_ptr<ConnectionAcceptor>> StartPerSource(grpc::Server* server, int64_t max_per_source) {
  AcceptorOptions options;
  options.handshake_timeout = absl::Seconds(30);
  options.max_per_source = max_per_source;
  auto acceptor = ConnectionAcceptor::Listen("127.0.0.1:0", options);
  if (acceptor.ok()) (*acceptor)->Start(server);
  return acceptor;
}

// Connects from `source` again and again until gRPC gets the connection (the
// acceptor has seen the address's earlier ones end, at its sweep), at most 10 s:
// the open descriptor, or -1.
int ConnectOnceServed(int port, const char* source) {
  for (int i = 0; i < 100; ++i) {
    const int fd = Connect(port, source);
    if (HandedToGrpc(fd)) return fd;
    close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return -1;
}

TEST(ConnectionAcceptorTest, OneSourceHoldsAtMostItsConnectionsAndGetsThemBackWhenOneEnds) {
  PortlessServer portless;
  auto acceptor = StartPerSource(portless.server.get(), 3);
  ASSERT_TRUE(acceptor.ok()) << acceptor.status();
  const int port = (*acceptor)->port();
  // 127.0.0.2's three: one waits silent, two are handed over; all three count.
  const int silent = Connect(port, "127.0.0.2");
  const int first = Connect(port, "127.0.0.2");
  const int second = Connect(port, "127.0.0.2");
  ASSERT_TRUE(HandedToGrpc(first));
  ASSERT_TRUE(HandedToGrpc(second));
  const int fourth = Connect(port, "127.0.0.2");
  EXPECT_TRUE(ClosedByServer(fourth, std::chrono::seconds(10)));
  EXPECT_EQ((*acceptor)->source_shed(), 1u);
  const int other = Connect(port, "127.0.0.1");  // another source is served
  EXPECT_TRUE(HandedToGrpc(other));
  // One of 127.0.0.2's ends: once gRPC has closed it and the acceptor noticed (its
  // sweep, once a second), 127.0.0.2 may connect again.
  close(first);
  const int again = ConnectOnceServed(port, "127.0.0.2");
  EXPECT_GE(again, 0) << "127.0.0.2 never got its connection back";
  if (again >= 0) close(again);
  EXPECT_EQ((*acceptor)->silent_closed(), 0u);
  (*acceptor)->Stop();
  for (int fd : {silent, second, fourth, other}) close(fd);
}

// A connection that was still open at a sweep, then ends, gives its place back too.
// Before, the sweep moved each entry it kept onto itself, which emptied its address
// (libstdc++ clears a string moved onto itself): its end was never counted, so
// every connection that lived past a second kept its place for good, and an address
// whose clients came one after another was locked out after max_per_source of them.
TEST(ConnectionAcceptorTest, AConnectionOpenAtASweepGivesItsPlaceBackWhenItEnds) {
  PortlessServer portless;
  auto acceptor = StartPerSource(portless.server.get(), 1);
  ASSERT_TRUE(acceptor.ok()) << acceptor.status();
  const int port = (*acceptor)->port();
  for (int client = 0; client < 2; ++client) {  // clients one after another
    SCOPED_TRACE(client);
    const int fd = ConnectOnceServed(port, "127.0.0.2");
    ASSERT_GE(fd, 0) << "127.0.0.2 was refused for good after " << client << " connection(s)";
    // Open through a sweep: one counted from now began after the hand-over (the
    // acceptor's one thread does both).
    const uint64_t sweeps = (*acceptor)->sweeps();
    for (int i = 0; i < 1000 && (*acceptor)->sweeps() == sweeps; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GT((*acceptor)->sweeps(), sweeps);
    close(fd);
  }
  (*acceptor)->Stop();
}

}  // namespace
}  // namespace reco
