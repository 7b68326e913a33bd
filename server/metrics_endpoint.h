// MetricsEndpoint: serves GET /metrics in the Prometheus text format on its own HTTP
// port (prometheus-cpp's exposer, civetweb underneath), beside the gRPC port.
//
// A scrape takes a fresh snapshot from `source` (a SinceStart() snapshot) and turns it
// into text (server/prometheus_metrics.h): nothing is recorded per RPC for it, so
// the calls pay nothing when nobody scrapes, and a scrape costs one snapshot.
//
// Memory: bounded by the exposer's settings, whatever its clients do: two worker
// threads, each reading at most 16 KiB of a request, 20 accepted connections waiting
// for them, and a request that is not complete within 10 s is closed (a client
// that sends slowly holds a worker that long, no longer). The reply is the text of
// the metric families, a few KiB. Other paths answer 404; the gRPC port is not
// touched. So clients that never finish a request delay scrapes (each holds a worker
// up to 10 s); an allow list (`allow`: the scrapers' addresses) closes every other
// address's connection at accept, before it takes a worker.
//
// Example (wiring in server/reco_server_main.cc):
//   absl::StatusOr<std::unique_ptr<reco::MetricsEndpoint>> metrics =
//       reco::MetricsEndpoint::Start("127.0.0.1:0", [&] { return server->SinceStart(); });
//   (*metrics)->port()   // the port bound (0 asks for a free one)
//
// Thread-safety: `source` is called on the exposer's threads, one scrape at a time
// per thread; it must be safe to call from any thread and outlive the endpoint.
#ifndef ARENA_GRPC_SERVER_METRICS_ENDPOINT_H_
#define ARENA_GRPC_SERVER_METRICS_ENDPOINT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/stats.pb.h"

namespace prometheus {
class Exposer;
class Collectable;
}  // namespace prometheus

namespace reco {

// OK when `listen` is an address the endpoint can serve on: HOST:PORT as --listen
// takes it (an empty host, 0.0.0.0 or * is every IPv4 interface), IPv4 only: Debian's
// civetweb, which prometheus-cpp serves with, is built without IPv6 (binding [::1]
// failed with "null context when constructing CivetServer"). InvalidArgument with
// "listen=..." and the reason otherwise.
absl::Status CheckMetricsListen(const std::string& listen);

// OK when every entry of `allow` is an IPv4 address or ADDRESS/BITS (BITS 0-32);
// InvalidArgument naming the first that is not, with "allow=..." first.
absl::Status CheckMetricsAllow(const std::vector<std::string>& allow);

class MetricsEndpoint {
 public:
  using Source = std::function<v1::StatsSnapshot()>;
  // listen: as CheckMetricsListen takes it; allow: as CheckMetricsAllow takes it, the
  // addresses that may connect (empty: any). InvalidArgument for an address it
  // refuses, Unavailable when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(const std::string& listen, Source source,
                                                                const std::vector<std::string>& allow = {});
  ~MetricsEndpoint();

  int port() const { return port_; }

 private:
  MetricsEndpoint() = default;
  std::shared_ptr<prometheus::Collectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_METRICS_ENDPOINT_H_
