// See listen_address.h.
#include "server/listen_address.h"

#include "absl/strings/str_cat.h"
#include "rpc/port_number.h"

namespace reco {

absl::Status CheckListenAddress(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {  // an empty HOST (":50051") is every interface
    return absl::InvalidArgumentError(absl::StrCat("listen=", listen, " is not HOST:PORT"));
  }
  const std::string port = listen.substr(colon + 1);
  if (!PortNumber(port).has_value()) {
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
