// See listen_address.h.
#include "server/listen_address.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace reco {

absl::Status CheckListenAddress(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {  // an empty HOST (":50051") is every interface
    return absl::InvalidArgumentError(absl::StrCat("listen=", listen, " is not HOST:PORT"));
  }
  const std::string port = listen.substr(colon + 1);
  uint32_t n = 0;
  // SimpleAtoi takes signs and spaces; a port is digits only.
  const bool digits = !port.empty() && port.size() <= 5 &&
                      std::all_of(port.begin(), port.end(), [](char c) { return absl::ascii_isdigit(c); });
  if (!digits || !absl::SimpleAtoi(port, &n) || n > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen=", listen, ": port '", port, "' is not in 1-65535 (or 0: pick a free port)"));
  }
  return absl::OkStatus();
}

bool ListensOnEveryInterface(const std::string& listen) {
  const std::string host = listen.substr(0, listen.rfind(':'));
  return host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::" || host == "*";
}

}  // namespace reco
