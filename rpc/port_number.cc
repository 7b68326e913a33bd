// See port_number.h.
#include "rpc/port_number.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace reco {

std::optional<int> PortNumber(absl::string_view port) {
  if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), absl::ascii_isdigit)) {
    return std::nullopt;
  }
  int n = 0;
  for (char c : port) n = n * 10 + (c - '0');
  if (n > 65535) return std::nullopt;
  return n;
}

}  // namespace reco
