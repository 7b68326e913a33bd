// See metrics_endpoint.h.
#include "server/metrics_endpoint.h"

#include <arpa/inet.h>

#include <exception>
#include <utility>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/listen_address.h"
#include "server/prometheus_metrics.h"

namespace reco {
namespace {

class SnapshotCollectable : public prometheus::Collectable {
 public:
  explicit SnapshotCollectable(MetricsEndpoint::Source source) : source_(std::move(source)) {}
  std::vector<prometheus::MetricFamily> Collect() const override { return PrometheusMetrics(source_()); }

 private:
  MetricsEndpoint::Source source_;
};

// civetweb's form of HOST:PORT: the port alone for every IPv4 interface.
std::string CivetwebPort(const std::string& listen) {
  if (ListensOnEveryInterface(listen)) {  // IPv4 only: CheckMetricsListen
    return listen.substr(listen.rfind(':') + 1);
  }
  return listen;
}

// civetweb's access_control_list: every address denied, then the allowed ones.
std::string CivetwebAcl(const std::vector<std::string>& allow) {
  std::string acl = "-0.0.0.0/0";
  for (const std::string& a : allow) absl::StrAppend(&acl, ",+", a);
  return acl;
}

}  // namespace

absl::Status CheckMetricsAllow(const std::vector<std::string>& allow) {
  for (const std::string& entry : allow) {
    const size_t slash = entry.find('/');
    const std::string address = entry.substr(0, slash);
    in_addr parsed{};
    int bits = 32;
    const bool ok =
        inet_pton(AF_INET, address.c_str(), &parsed) == 1 &&
        (slash == std::string::npos || (absl::SimpleAtoi(entry.substr(slash + 1), &bits) && bits >= 0 && bits <= 32));
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("allow=", entry, ": not an IPv4 address or ADDRESS/BITS (e.g. 10.0.0.7 or 10.0.0.0/8)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckMetricsListen(const std::string& listen) {
  if (absl::Status s = CheckListenAddress(listen); !s.ok()) return s;
  if (listen.find('[') != std::string::npos || listen.find("::") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen=", listen,
                     ": the metrics endpoint has no IPv6 (Debian's civetweb, which prometheus-cpp serves "
                     "with, is built without it): give an IPv4 address, e.g. 127.0.0.1:9464 or 0.0.0.0:9464"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(const std::string& listen, Source source,
                                                                        const std::vector<std::string>& allow) {
  if (absl::Status s = CheckMetricsListen(listen); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("metrics_", s.message()));
  }
  if (absl::Status s = CheckMetricsAllow(allow); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("metrics_", s.message()));
  }
  std::vector<std::string> options = {"listening_ports",    CivetwebPort(listen),
                                      "num_threads",        "2",
                                      "max_request_size",   "16384",
                                      "connection_queue",   "20",
                                      "request_timeout_ms", "10000",
                                      "enable_keep_alive",  "no"};
  if (!allow.empty()) options.insert(options.end(), {"access_control_list", CivetwebAcl(allow)});
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  endpoint->collectable_ = std::make_shared<SnapshotCollectable>(std::move(source));
  try {
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(options);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("metrics_listen=", listen, ": cannot serve metrics: ", e.what()));
  }
  endpoint->exposer_->RegisterCollectable(endpoint->collectable_);
  const std::vector<int> ports = endpoint->exposer_->GetListeningPorts();
  endpoint->port_ = ports.empty() ? 0 : ports.front();
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() {
  if (exposer_ != nullptr) exposer_->RemoveCollectable(collectable_);
}

}  // namespace reco
