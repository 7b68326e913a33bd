// ClientFigures: what the client saw of one target during one measured window.
//
// Each driver thread keeps its own ClientFigures and they are merged when the threads
// have joined (no locks in the hot path), the way wrk and h2load do it. Rounds of the
// same target merge the same way into the run's totals.
//
// Which requests count: a closed loop records the responses that arrive inside the
// window; an open loop records the requests SCHEDULED inside it (and waits for them),
// so that a request delayed past the window still carries its delay.
//
// Example:
//   reco::ClientFigures a, b;
//   a.latency.Record(1000); a.ok = 1;
//   b.latency.Record(3000); b.ok = 1;
//   a.Merge(b);   // a.ok == 2, a.latency.count() == 2
//
// Thread-safety: none; one writer at a time.
#ifndef ARENA_GRPC_CLIENT_CLIENT_FIGURES_H_
#define ARENA_GRPC_CLIENT_CLIENT_FIGURES_H_

#include <array>
#include <cstdint>
#include <string>

#include "core/latency_histogram.h"

namespace reco {

struct ClientFigures {
  // The gRPC status codes are 0..16.
  static constexpr int kStatusCodes = 17;

  double seconds = 0;  // measured time covered (sum over merged windows)
  // CPU time (user + system) of the whole client process during the window: how much
  // of a shared machine the client itself took from the server.
  double client_cpu_seconds = 0;
  // Latency of OK responses. Closed loop: from the send. Open loop: from the time the
  // request was SCHEDULED to be sent (coordinated omission corrected, as wrk2 does).
  LatencyHistogram latency;
  // Open loop only: the same responses timed from the actual send.
  LatencyHistogram latency_uncorrected;
  // Open loop only: actual send time minus scheduled time, per request.
  LatencyHistogram schedule_lag;

  uint64_t sent = 0;            // requests sent inside the window
  uint64_t scheduled = 0;       // open loop: requests scheduled inside the window
  uint64_t unsent = 0;          // open loop: of those, never sent (the client fell behind)
  uint64_t completed = 0;       // responses counted (OK or not)
  uint64_t ok = 0;              // OK status, right item count, and (when sampled) right bytes
  uint64_t response_bytes = 0;  // serialized response bytes of the OK responses
  // Status errors by code (index = grpc::StatusCode); errors_by_code[0] stays 0.
  std::array<uint64_t, kStatusCodes> errors_by_code{};
  uint64_t wrong_item_count = 0;  // OK status but not the asked number of items
  uint64_t wrong_content = 0;     // sampled and not byte-identical to the builder's
  uint64_t verified = 0;          // responses compared byte for byte
  // A server-streaming method's: the messages of the OK calls, and each OK call's time
  // to its first message (from the send, or in an open loop from the schedule).
  // `latency` is then the time to the call's end, `response_bytes` every message's.
  bool streaming = false;
  uint64_t messages = 0;
  LatencyHistogram first_message;

  void Merge(const ClientFigures& other);
  uint64_t status_errors() const;
  // Every failed request: status errors plus wrong responses.
  uint64_t errors() const { return status_errors() + wrong_item_count + wrong_content; }
  double error_rate() const { return completed ? static_cast<double>(errors()) / completed : 0.0; }
  double qps() const { return seconds > 0 ? ok / seconds : 0.0; }
  double client_cpu_micros_per_response() const { return completed ? client_cpu_seconds * 1e6 / completed : 0.0; }
  double sent_per_second() const { return seconds > 0 ? sent / seconds : 0.0; }
};

// "UNAVAILABLE", "DEADLINE_EXCEEDED", ... for 0..16; "CODE_<n>" otherwise.
std::string StatusCodeName(int code);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_CLIENT_FIGURES_H_
