// See connection_acceptor.h.
#include "server/connection_acceptor.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

// The peer's address without its port, as text ("127.0.0.1", "::1").
std::string SourceOf(const sockaddr_storage& peer) {
  char text[INET6_ADDRSTRLEN] = {};
  if (peer.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&peer)->sin_addr, text, sizeof text);
  } else if (peer.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_addr, text, sizeof text);
  }
  return text;
}

// The inode of the socket `fd` names; 0 if none.
uint64_t InodeOf(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) ? static_cast<uint64_t>(st.st_ino) : 0;
}

// Whether the connection has neither sent nor received data for `idle`.
bool IdleFor(int fd, absl::Duration idle) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return false;
  const int64_t ms = absl::ToInt64Milliseconds(idle);
  return info.tcpi_last_data_recv >= ms && info.tcpi_last_data_sent >= ms;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ConnectionAcceptor>> ConnectionAcceptor::Listen(const std::string& listen,
                                                                               AcceptorOptions options) {
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
  return std::unique_ptr<ConnectionAcceptor>(new ConnectionAcceptor(fd, bound_port, wake[0], wake[1], options));
}

ConnectionAcceptor::ConnectionAcceptor(int listen_fd, int port, int wake_read, int wake_write, AcceptorOptions options)
    : listen_fd_(listen_fd),
      port_(port),
      wake_read_(wake_read),
      wake_write_(wake_write),
      options_(options),
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
  std::vector<pollfd> fds;
  std::vector<size_t> polled;  // waiting_ index of fds[2 + i]
  for (;;) {
    // Poll the listener, the wake pipe, and every waiting connection not resting
    // after a partial preface; wake for the nearest deadline or end of rest.
    const absl::Time now = absl::Now();
    absl::Time next = absl::InfiniteFuture();
    fds.assign({{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}});
    polled.clear();
    if (!handed_over_.empty()) next = std::min(next, next_sweep_);
    for (size_t i = 0; i < waiting_.size(); ++i) {
      next = std::min(next, waiting_[i].deadline);
      if (waiting_[i].quiet_until > now) {
        next = std::min(next, waiting_[i].quiet_until);
        continue;
      }
      fds.push_back({waiting_[i].fd, POLLIN, 0});
      polled.push_back(i);
    }
    const int timeout_ms =
        next == absl::InfiniteFuture() ? -1 : static_cast<int>(absl::ToInt64Milliseconds(next - now) + 1);
    if (poll(fds.data(), fds.size(), std::max(timeout_ms, -1)) < 0 && errno != EINTR) break;
    if (fds[1].revents != 0) break;
    const absl::Time after = absl::Now();
    std::vector<bool> done(waiting_.size(), false);
    for (size_t i = 0; i < polled.size(); ++i) {
      if (fds[2 + i].revents != 0) done[polled[i]] = Settle(waiting_[polled[i]], server, after);
    }
    for (size_t i = 0; i < waiting_.size(); ++i) {
      if (!done[i] && waiting_[i].deadline <= after) {  // silent too long
        CloseWaiting(waiting_[i]);
        silent_closed_.fetch_add(1);
        done[i] = true;
      }
    }
    size_t kept = 0;
    for (size_t i = 0; i < waiting_.size(); ++i) {
      if (!done[i]) waiting_[kept++] = waiting_[i];
    }
    waiting_.resize(kept);
    if (fds[0].revents != 0) AcceptAll();
    if (!handed_over_.empty() && absl::Now() >= next_sweep_) Sweep(absl::Now());
  }
  for (const Waiting& w : waiting_) close(w.fd);
  waiting_.clear();
}

void ConnectionAcceptor::AcceptAll() {
  for (;;) {  // everything waiting
    // Non-blocking: gRPC's endpoint reads until EAGAIN; a blocking socket would
    // park one of its pollers in recvmsg().
    sockaddr_storage peer{};
    socklen_t peer_length = sizeof peer;
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_length, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      if (options_.max_descriptors > 0 && fd >= options_.max_descriptors) {
        close(fd);
        shed_.fetch_add(1);
        next_sweep_ = std::min(next_sweep_, absl::Now());  // idle ones may go
        LogAtMostOncePerSecond(absl::StrCat(
            "at least ", fd, " descriptors open, the connection cap (--max_connections=", options_.max_descriptors,
            "): closing new connections until some end; ", shed_.load(), " closed so far"));
        continue;
      }
      if (options_.max_connections > 0 && Held() - shut_down_ >= options_.max_connections) {
        close(fd);
        shed_.fetch_add(1);
        next_sweep_ = std::min(next_sweep_, absl::Now());  // idle ones may go
        LogAtMostOncePerSecond(absl::StrCat(
            Held(), " connections open, the cap --stream_memory_bytes leaves room for (", options_.max_connections,
            "): closing new connections until some end; ", shed_.load(), " closed so far"));
        continue;
      }
      std::string source = SourceOf(peer);
      int64_t& from_source = per_source_[source];
      if (options_.max_per_source > 0 && from_source >= options_.max_per_source) {
        source_shed_.fetch_add(1);  // counted first: a peer that sees the close sees the count
        close(fd);
        LogAtMostOncePerSecond(absl::StrCat(from_source, " connections open from ", source,
                                            ", the limit per source (--max_connections_per_source): closing its new "
                                            "connections until some end; ",
                                            source_shed_.load(), " closed so far"));
        continue;
      }
      ++from_source;
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);          // as gRPC's own listener does
      if (waiting_.size() >= std::max<size_t>(options_.max_waiting, 1)) {  // the oldest makes room
        CloseWaiting(waiting_.front());
        silent_closed_.fetch_add(1);
        waiting_.erase(waiting_.begin());
      }
      const absl::Time now = absl::Now();
      waiting_.push_back({fd, now + options_.handshake_timeout, now, std::move(source)});
      if (NearCap()) next_sweep_ = std::min(next_sweep_, now);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EMFILE || errno == ENFILE) {
      Shed();
      LogAtMostOncePerSecond(absl::StrCat("out of file descriptors (", std::strerror(EMFILE),
                                          "): closing new connections until some end; ", shed_.load(),
                                          " closed so far"));
      if (spare_fd_ < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // no spare: do not spin
    }
    return;  // EAGAIN, or back to poll after shedding
  }
}

bool ConnectionAcceptor::Settle(Waiting& w, grpc::Server* server, absl::Time now) {
  // The HTTP/2 client preface is 24 bytes ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").
  constexpr size_t kPreface = 24;
  char bytes[kPreface];
  const ssize_t n = recv(w.fd, bytes, sizeof bytes, MSG_PEEK);
  if (n >= static_cast<ssize_t>(kPreface)) {
    if (handed_over_.empty()) next_sweep_ = now + absl::Seconds(1);
    handed_over_.push_back({w.fd, InodeOf(w.fd), w.source});
    grpc::AddInsecureChannelFromFd(server, w.fd);  // whatever they are: gRPC judges them
    return true;
  }
  if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) {
    w.quiet_until = now + absl::Milliseconds(20);  // part of it: look again soon, do not spin
    return false;
  }
  CloseWaiting(w);  // closed by the client, or an error
  return true;
}

void ConnectionAcceptor::CloseWaiting(const Waiting& w) {
  close(w.fd);
  Forget(w.source);
}

void ConnectionAcceptor::Forget(const std::string& source) {
  auto it = per_source_.find(source);
  if (it != per_source_.end() && --it->second <= 0) per_source_.erase(it);
}

int64_t ConnectionAcceptor::Cap() const {
  const int64_t d = options_.max_descriptors, c = options_.max_connections;
  if (d <= 0 || c <= 0) return std::max<int64_t>(d, c);
  return std::min(d, c);
}

bool ConnectionAcceptor::NearCap() const { return Cap() > 0 && Held() >= Cap() * 7 / 8; }

void ConnectionAcceptor::Sweep(absl::Time now) {
  size_t kept = 0;
  int64_t shut = 0;  // shut down, not yet closed by gRPC
  for (size_t i = 0; i < handed_over_.size(); ++i) {
    HandedOver& h = handed_over_[i];
    if (h.inode == 0 || InodeOf(h.fd) != h.inode) {  // gRPC closed it (the number may be reused)
      Forget(h.source);
      continue;
    }
    shut += h.shut;
    // Not onto itself: a std::string moved onto itself is left empty, and the
    // connection's end would then be forgotten for no address.
    if (kept != i) handed_over_[kept] = std::move(h);
    ++kept;
  }
  handed_over_.resize(kept);
  shut_down_ = shut;
  // Near the cap, idle ones are shut down, oldest first, down to 3/4 of it.
  int64_t to_shut = NearCap() ? Held() - shut - Cap() * 3 / 4 : 0;
  for (HandedOver& h : handed_over_) {
    if (to_shut <= 0) break;
    // Looked at again just before: the shorter the window in which gRPC could close it
    // and another socket take its number.
    if (h.shut || InodeOf(h.fd) != h.inode || !IdleFor(h.fd, options_.handshake_timeout)) continue;
    shutdown(h.fd, SHUT_RDWR);  // not close: the descriptor is gRPC's, which closes it now
    h.shut = true;
    ++shut_down_;
    idle_shut_.fetch_add(1);
    --to_shut;
  }
  next_sweep_ = now + (NearCap() ? absl::Milliseconds(250) : absl::Seconds(1));
  sweeps_.fetch_add(1);
}

void ConnectionAcceptor::LogAtMostOncePerSecond(const std::string& line) {
  const absl::Time now = absl::Now();
  if (now - last_log_ < absl::Seconds(1)) return;
  last_log_ = now;
  std::cerr << "reco_server: " << line << std::endl;
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
