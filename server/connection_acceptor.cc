// See connection_acceptor.h.
#include "server/connection_acceptor.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>

#include <grpcpp/server_posix.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace reco {
namespace {

// The kernel's cap (net.core.somaxconn, 4096 on Debian 12) applies anyway.
constexpr int kBacklog = 4096;

absl::Status Unavailable(const std::string& listen, const std::string& why) {
  return absl::UnavailableError(absl::StrCat("cannot listen on ", listen, ": ", why));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ConnectionAcceptor>> ConnectionAcceptor::Listen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return Unavailable(listen, "not HOST:PORT");
  std::string host = listen.substr(0, colon);
  const std::string port = listen.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return Unavailable(listen, gai_strerror(rc));
  }
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // restarts reuse TIME_WAIT ports
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, kBacklog) != 0) {
      why = errno == EADDRINUSE ? "the port is in use" : std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return Unavailable(listen, why);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const int bound_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    close(fd);
    return Unavailable(listen, absl::StrCat("pipe: ", std::strerror(errno)));
  }
  return std::unique_ptr<ConnectionAcceptor>(new ConnectionAcceptor(fd, bound_port, wake[0], wake[1]));
}

ConnectionAcceptor::ConnectionAcceptor(int listen_fd, int port, int wake_read, int wake_write)
    : listen_fd_(listen_fd), port_(port), wake_read_(wake_read), wake_write_(wake_write),
      spare_fd_(open("/dev/null", O_RDONLY | O_CLOEXEC)) {}

ConnectionAcceptor::~ConnectionAcceptor() {
  Stop();
  for (int fd : {listen_fd_, wake_read_, wake_write_, spare_fd_}) {
    if (fd >= 0) close(fd);
  }
}

void ConnectionAcceptor::Start(grpc::Server* server) {
  thread_ = std::thread([this, server] { Run(server); });
}

void ConnectionAcceptor::Stop() {
  if (!thread_.joinable()) return;
  (void)!write(wake_write_, "x", 1);
  thread_.join();
  shutdown(listen_fd_, SHUT_RDWR);  // new connections are refused from here on
}

void ConnectionAcceptor::Run(grpc::Server* server) {
  auto last_log = std::chrono::steady_clock::time_point{};
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    for (;;) {  // everything waiting
      // Non-blocking: gRPC's endpoint reads until EAGAIN; a blocking socket would
      // park one of its pollers in recvmsg().
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) {
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as gRPC's own listener does
        grpc::AddInsecureChannelFromFd(server, fd);
        continue;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        Shed();
        const auto now = std::chrono::steady_clock::now();
        if (now - last_log > std::chrono::seconds(1)) {
          last_log = now;
          std::cerr << "reco_server: out of file descriptors (" << std::strerror(EMFILE)
                    << "): closing new connections until some end; " << shed_.load() << " closed so far" << std::endl;
        }
        if (spare_fd_ < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // no spare: do not spin
      }
      break;  // EAGAIN, or back to poll after shedding
    }
  }
}

void ConnectionAcceptor::Shed() {
  if (spare_fd_ >= 0) {
    close(spare_fd_);
    spare_fd_ = -1;
  }
  const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) {
    close(fd);
    shed_.fetch_add(1);
  }
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

}  // namespace reco
