// Test helpers for the Prometheus endpoint (server/metrics_endpoint.h): raw HTTP over
// loopback, and a scrape parsed into series -> value.
//
// Example:
//   std::map<std::string, double> series = reco::testing::Scrape(server->metrics_port());
//   series["reco_rpcs_total{mode=\"heap\",code=\"OK\"}"]   // calls answered OK
#ifndef ARENA_GRPC_SERVER_TESTING_METRICS_SCRAPE_H_
#define ARENA_GRPC_SERVER_TESTING_METRICS_SCRAPE_H_

#include <map>
#include <string>

namespace reco::testing {

// A socket from `source` connected to 127.0.0.1:port, reads bounded by a 20 s
// timeout; -1 on failure.
int Connect(int port, const char* source = "127.0.0.1");
// Sends `request` and reads until the server closes: the whole HTTP response.
std::string Exchange(int port, const std::string& request, const char* source = "127.0.0.1");
// GET /metrics: series (name with labels, as printed) -> value. Fails the test on a
// status other than 200.
std::map<std::string, double> Scrape(int port, const char* source = "127.0.0.1");

}  // namespace reco::testing

#endif  // ARENA_GRPC_SERVER_TESTING_METRICS_SCRAPE_H_
