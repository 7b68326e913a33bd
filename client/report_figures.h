// ReportFigures: the named figures the table, CSV and HTML reports show, each
// computed the same way from a (client window, server window) pair -- a round's or
// the run's totals -- so every renderer prints the same number for the same thing.
//
// Example:
//   for (const reco::Figure& f : reco::ReportFigures(report.options)) {
//     std::optional<double> v = f.value(target.client, target.server);   // nullopt: n/a
//     std::string text = reco::FormatFigure(f, v);                       // "12,345" / "n/a"
//   }
//
// Thread-safety: the returned list is immutable.
#ifndef ARENA_GRPC_CLIENT_REPORT_FIGURES_H_
#define ARENA_GRPC_CLIENT_REPORT_FIGURES_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/client_figures.h"
#include "client/load_options.h"
#include "client/server_figures.h"

namespace reco {

struct Figure {
  std::string key;      // JSON/CSV name: "qps", "latency_p99_ms", "server_build_allocs_per_rpc"
  std::string label;    // terminal/HTML label: "p99 latency (ms)"
  std::string section;  // "client" or "server"
  int decimals = 0;
  // nullopt when the figure does not apply (server side unavailable, closed loop ...).
  std::function<std::optional<double>(const ClientFigures&, const ServerFigures&)> value;
};

// The figures for a run with these options (open-loop figures only for open loops).
std::vector<Figure> ReportFigures(const LoadOptions& options);

// "12345.68" with the figure's decimals, "n/a" for nullopt.
std::string FormatFigure(const Figure& figure, std::optional<double> value);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_REPORT_FIGURES_H_
