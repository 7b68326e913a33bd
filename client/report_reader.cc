// See report_reader.h.
#include "client/report_reader.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/server_figures.h"
#include "core/request.h"
#include "nlohmann/json.hpp"

namespace reco {
namespace {

using nlohmann::json;

// nlohmann's at() and get<T>() throw on a missing key or a wrong type; ParseReportJson
// catches that at its one entry point and returns it as a Status, so no exception
// leaves this file. Checks that the library cannot make (buckets, layout) return
// their own Status.

absl::Status Invalid(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

absl::Status ReadHistogram(const json& j, const std::string& where, LatencyHistogram* h) {
  if (!j.contains("buckets") || !j.contains("sum_ns")) {
    return Invalid(where, "no histogram buckets (written by a reco_load older than `reco_load merge`; rerun it)");
  }
  uint64_t bucket_total = 0;
  for (const json& pair : j.at("buckets")) {
    const int64_t index = pair.at(0).get<int64_t>();
    const uint64_t n = pair.at(1).get<uint64_t>();
    if (index < 0 || index >= LatencyHistogram::kBucketCount) {
      return Invalid(where, absl::StrCat("bucket index ", index, " is outside 0..", LatencyHistogram::kBucketCount - 1));
    }
    h->AddToBucket(static_cast<int>(index), n);
    bucket_total += n;
  }
  const uint64_t count = j.at("count").get<uint64_t>();
  if (bucket_total != count) {
    return Invalid(where, absl::StrCat("buckets hold ", bucket_total, " values but count is ", count));
  }
  // AddToBucket only estimated these; the report has them exactly.
  if (count > 0) h->SetSummary(j.at("sum_ns").get<uint64_t>(), j.at("min_ns").get<uint64_t>(), j.at("max_ns").get<uint64_t>());
  return absl::OkStatus();
}

absl::Status ReadClient(const json& j, const std::string& where, ClientFigures* c) {
  c->seconds = j.at("seconds").get<double>();
  c->client_cpu_seconds = j.at("client_cpu_seconds").get<double>();
  c->sent = j.at("sent").get<uint64_t>();
  c->completed = j.at("completed").get<uint64_t>();
  c->ok = j.at("ok").get<uint64_t>();
  c->response_bytes = j.at("response_bytes").get<uint64_t>();
  c->wrong_item_count = j.at("wrong_item_count").get<uint64_t>();
  c->wrong_content = j.at("wrong_content").get<uint64_t>();
  c->verified = j.at("verified").get<uint64_t>();
  for (const auto& [name, n] : j.at("errors_by_code").items()) {
    int code = 1;
    while (code < ClientFigures::kStatusCodes && StatusCodeName(code) != name) ++code;
    if (code == ClientFigures::kStatusCodes) return Invalid(where, absl::StrCat("unknown status code '", name, "'"));
    c->errors_by_code[code] = n.get<uint64_t>();
  }
  absl::Status s = ReadHistogram(j.at("latency"), absl::StrCat(where, ".latency"), &c->latency);
  if (!s.ok()) return s;
  // Open loop only (RenderJson writes these for open loops).
  if (j.contains("scheduled")) c->scheduled = j.at("scheduled").get<uint64_t>();
  if (j.contains("unsent")) c->unsent = j.at("unsent").get<uint64_t>();
  for (auto [key, h] : {std::pair{"latency_uncorrected", &c->latency_uncorrected},
                        std::pair{"schedule_lag", &c->schedule_lag}}) {
    if (!j.contains(key)) continue;
    s = ReadHistogram(j.at(key), absl::StrCat(where, ".", key), h);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ReadOptions(const json& p, LoadOptions* o) {
  // One entry per backend (report_json.cc), regrouped by name as on the command line.
  std::vector<std::string> values;
  for (const json& t : p.at("targets")) values.push_back(t.get<std::string>());
  absl::StatusOr<std::vector<TargetSpec>> specs = ParseTargetFlags(values);
  if (!specs.ok()) return Invalid("parameters.targets", std::string(specs.status().message()));
  o->targets = *std::move(specs);
  if (p.contains("lb_policy")) o->lb_policy = p.at("lb_policy").get<std::string>();
  o->warmup = absl::Seconds(p.at("warmup_seconds").get<double>());
  o->duration = absl::Seconds(p.at("duration_seconds").get<double>());
  o->rounds = p.at("rounds").get<int>();
  o->rate = p.at("rate").get<double>();
  o->concurrency = p.at("concurrency").get<int>();
  o->connections = p.at("connections").get<int>();
  o->threads = p.at("threads").get<int>();
  o->lookahead_bytes = p.at("lookahead_bytes").get<int>();
  o->items = p.at("items").get<uint32_t>();
  const std::string profile = p.at("profile").get<std::string>();
  if (!ParseTextProfile(profile, &o->profile)) return Invalid("parameters.profile", "unknown profile '" + profile + "'");
  o->seed = p.at("seed").get<uint64_t>();
  o->variants = p.at("variants").get<int>();
  o->verify_every = p.at("verify_every").get<int>();
  o->max_error_rate = p.at("max_error_rate").get<double>();
  return absl::OkStatus();
}

void ReadEnvironment(const json& e, RunEnvironment* out) {
  out->protobuf_version = e.at("protobuf_version").get<std::string>();
  out->grpc_version = e.at("grpc_version").get<std::string>();
  out->cpu_model = e.at("cpu_model").get<std::string>();
  out->cpus = e.at("cpus").get<int>();
  out->client_malloc = e.at("client_malloc").get<std::string>();
  out->started_utc = e.at("started_utc").get<std::string>();
  out->command_line = e.at("command_line").get<std::string>();
  if (e.contains("merged_from")) out->merged_from = e.at("merged_from").get<std::vector<std::string>>();
}

absl::Status CheckLayout(const json& doc) {
  if (!doc.contains("histogram_layout")) {
    return Invalid("histogram_layout", "missing (written by a reco_load older than `reco_load merge`; rerun it)");
  }
  const json& l = doc.at("histogram_layout");
  if (l.at("sub_bucket_bits").get<int>() != LatencyHistogram::kSubBucketBits ||
      l.at("max_exponent").get<int>() != LatencyHistogram::kMaxExponent ||
      l.at("bucket_count").get<int>() != LatencyHistogram::kBucketCount) {
    return Invalid("histogram_layout", absl::StrCat("differs from this reco_load's (", l.dump(), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RunReport> FromDocument(const json& doc) {
  if (!doc.is_object() || !doc.contains("tool") || doc.at("tool") != "reco_load") {
    return absl::InvalidArgumentError("not a reco_load report (no \"tool\": \"reco_load\")");
  }
  absl::Status s = CheckLayout(doc);
  if (!s.ok()) return s;
  RunReport r;
  s = ReadOptions(doc.at("parameters"), &r.options);
  if (!s.ok()) return s;
  ReadEnvironment(doc.at("environment"), &r.environment);
  r.warnings = doc.at("warnings").get<std::vector<std::string>>();
  r.wall_seconds = doc.at("wall_seconds").get<double>();
  const json& targets = doc.at("targets");
  if (targets.size() != r.options.targets.size()) {
    return Invalid("targets", absl::StrCat(targets.size(), " targets but parameters.targets lists ",
                                           r.options.targets.size()));
  }
  for (size_t ti = 0; ti < targets.size(); ++ti) {
    const json& tj = targets[ti];
    TargetResult t;
    t.spec = r.options.targets[ti];
    const std::string where = absl::StrCat("targets[", ti, "] (", t.spec.name, ")");
    if (tj.at("name").get<std::string>() != t.spec.name) {
      return Invalid(where, "name differs from parameters.targets");
    }
    s = ReadClient(tj.at("client"), where + ".client", &t.client);
    if (!s.ok()) return s;
    t.server = UnavailableServerFigures(kServerNotReadBack);
    for (const json& rj : tj.at("rounds")) {
      RoundResult round;
      round.round = rj.at("round").get<int>();
      // Absent in reports from before they were written: 0, unknown.
      round.window_start_unix_ms = rj.value("window_start_unix_ms", int64_t{0});
      round.window_end_unix_ms = rj.value("window_end_unix_ms", int64_t{0});
      s = ReadClient(rj.at("client"), absl::StrCat(where, ".rounds[", round.round, "].client"), &round.client);
      if (!s.ok()) return s;
      round.server = UnavailableServerFigures(kServerNotReadBack);
      t.rounds.push_back(std::move(round));
    }
    r.targets.push_back(std::move(t));
  }
  return r;
}

}  // namespace

absl::StatusOr<RunReport> ParseReportJson(absl::string_view json_text) {
  try {
    return FromDocument(json::parse(json_text.begin(), json_text.end()));
  } catch (const json::parse_error& e) {
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON: ", e.what()));
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not a complete reco_load report: ", e.what()));
  }
}

absl::StatusOr<RunReport> ReadReportFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<RunReport> r = ParseReportJson(text.str());
  if (!r.ok()) return absl::Status(r.status().code(), absl::StrCat(path, ": ", r.status().message()));
  return r;
}

}  // namespace reco
