// See client_figures.h.
#include "client/client_figures.h"

#include "absl/strings/str_cat.h"

namespace reco {

void ClientFigures::Merge(const ClientFigures& o) {
  seconds += o.seconds;
  client_cpu_seconds += o.client_cpu_seconds;
  latency.Merge(o.latency);
  latency_uncorrected.Merge(o.latency_uncorrected);
  schedule_lag.Merge(o.schedule_lag);
  sent += o.sent;
  scheduled += o.scheduled;
  unsent += o.unsent;
  completed += o.completed;
  ok += o.ok;
  response_bytes += o.response_bytes;
  for (int i = 0; i < kStatusCodes; ++i) errors_by_code[i] += o.errors_by_code[i];
  wrong_item_count += o.wrong_item_count;
  wrong_content += o.wrong_content;
  verified += o.verified;
  streaming = streaming || o.streaming;
  messages += o.messages;
  first_message.Merge(o.first_message);
}

uint64_t ClientFigures::status_errors() const {
  uint64_t n = 0;
  for (uint64_t e : errors_by_code) n += e;
  return n;
}

std::string StatusCodeName(int code) {
  static const char* const kNames[] = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  if (code >= 0 && code < ClientFigures::kStatusCodes) return kNames[code];
  return absl::StrCat("CODE_", code);
}

}  // namespace reco
