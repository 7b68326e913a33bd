// See metrics_scrape.h.
#include "server/testing/metrics_scrape.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace reco::testing {

int Connect(int port, const char* source) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0) {
    close(fd);
    return -1;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{20, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string Exchange(int port, const std::string& request, const char* source) {
  int fd = Connect(port, source);
  if (fd < 0) return "";
  (void)!write(fd, request.data(), request.size());
  std::string response;
  char buf[16384];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) response.append(buf, static_cast<size_t>(n));
  close(fd);
  return response;
}

std::map<std::string, double> Scrape(int port, const char* source) {
  std::string response = Exchange(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", source);
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response.substr(0, 200);
  std::map<std::string, double> series;
  const size_t body = response.find("\r\n\r\n");
  for (absl::string_view line : absl::StrSplit(absl::string_view(response).substr(body + 4), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    double value = 0;
    if (space != absl::string_view::npos && absl::SimpleAtod(line.substr(space + 1), &value)) {
      series[std::string(line.substr(0, space))] = value;
    }
  }
  return series;
}

}  // namespace reco::testing
