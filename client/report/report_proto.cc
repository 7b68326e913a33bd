// See report_proto.h. Each in-memory type has its ...ToProto and, where a merge reads
// it back, its ...FromProto next to it.
#include "client/report/report_proto.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/noise_guard.h"
#include "client/report/report_figures.h"
#include "client/report/report_reader.h"
#include "core/request.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/type_resolver_util.h"

namespace reco {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Message;
using google::protobuf::Value;

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

absl::Status Invalid(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// Counts are doubles in the JSON (see the .proto); a negative or fractional value
// can only come from an edited file and reads as its integer part, clamped to what
// a uint64 holds (2^64 is about 1.8e19).
uint64_t Count(double v) { return v > 0 ? static_cast<uint64_t>(std::min(v, 1.8e19)) : 0; }

// --- JSON null ---------------------------------------------------------------------

// A number, or null for nullopt. Not finite is null too, as a JSON number cannot be.
Value NumberOrNull(std::optional<double> v) {
  Value out;
  if (v && std::isfinite(*v)) {
    out.set_number_value(*v);
  } else {
    out.set_null_value(google::protobuf::NULL_VALUE);
  }
  return out;
}

// `m` as a JSON object inside a Value (so that a field can be that object or null),
// through the report's own JSON options: the keys stay those of m's proto.
Value ObjectOrNull(const Message* m) {
  Value out;
  std::string json;
  if (!m || !PrintReportJson(*m, &json).ok() || !google::protobuf::util::JsonStringToMessage(json, &out).ok()) {
    out.set_null_value(google::protobuf::NULL_VALUE);
  }
  return out;
}

// --- LatencyHistogram --------------------------------------------------------------

// The percentiles written of every histogram (enough to draw its curve).
constexpr double kCurvePercentiles[] = {0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100};

template <typename HistogramProto>  // v1::ReportHistogram or v1::ReportClientHistogram
void SummaryToProto(const LatencyHistogram& h, HistogramProto* out) {
  out->set_count(h.count());
  out->set_min_ns(h.min());
  out->set_max_ns(h.max());
  out->set_mean_ns(h.mean());
  for (double p : kCurvePercentiles) (*out->mutable_percentiles_ns())[absl::StrFormat("%g", p)] = h.Percentile(p);
}

// A client histogram also carries its exact sum and its non-empty buckets (a few
// hundred at most: the latencies of one run span a few powers of two), so that the
// reports of concurrent runs merge exactly instead of averaging percentiles.
void ClientHistogramToProto(const LatencyHistogram& h, v1::ReportClientHistogram* out) {
  SummaryToProto(h, out);
  out->set_sum_ns(h.sum());
  const std::vector<uint64_t>& b = h.buckets();
  for (size_t i = 0; i < b.size(); ++i) {
    if (!b[i]) continue;
    ListValue* pair = out->add_buckets();
    pair->add_values()->set_number_value(i);
    pair->add_values()->set_number_value(b[i]);
  }
}

absl::Status ClientHistogramFromProto(const v1::ReportClientHistogram& in, const std::string& where,
                                      LatencyHistogram* h) {
  if (!in.has_sum_ns() || (in.buckets().empty() && in.count() > 0)) {
    return Invalid(where, "no histogram buckets (written by a reco_load older than `reco_load merge`; rerun it)");
  }
  uint64_t bucket_total = 0;
  for (const ListValue& pair : in.buckets()) {
    if (pair.values_size() != 2 || !pair.values(0).has_number_value() || !pair.values(1).has_number_value()) {
      return Invalid(where, "a bucket is not an [index, count] pair of numbers");
    }
    const double index = pair.values(0).number_value();
    if (!(index >= 0 && index < LatencyHistogram::kBucketCount)) {
      return Invalid(where,
                     absl::StrCat("bucket index ", index, " is outside 0..", LatencyHistogram::kBucketCount - 1));
    }
    const uint64_t n = Count(pair.values(1).number_value());
    h->AddToBucket(static_cast<int>(index), n);
    bucket_total += n;
  }
  const uint64_t count = Count(in.count());
  if (bucket_total != count) {
    return Invalid(where, absl::StrCat("buckets hold ", bucket_total, " values but count is ", count));
  }
  // AddToBucket only estimated these; the report has them exactly.
  if (count > 0) h->SetSummary(Count(in.sum_ns()), Count(in.min_ns()), Count(in.max_ns()));
  return absl::OkStatus();
}

// --- ClientFigures -----------------------------------------------------------------

void ClientToProto(const ClientFigures& c, bool open_loop, v1::ReportClient* out) {
  out->set_seconds(c.seconds);
  out->set_client_cpu_seconds(c.client_cpu_seconds);
  out->set_sent(c.sent);
  out->set_completed(c.completed);
  out->set_ok(c.ok);
  out->set_response_bytes(c.response_bytes);
  for (int code = 1; code < ClientFigures::kStatusCodes; ++code) {
    if (c.errors_by_code[code]) (*out->mutable_errors_by_code())[StatusCodeName(code)] = c.errors_by_code[code];
  }
  out->set_wrong_item_count(c.wrong_item_count);
  out->set_wrong_content(c.wrong_content);
  out->set_verified(c.verified);
  ClientHistogramToProto(c.latency, out->mutable_latency());
  if (c.streaming) {
    out->set_messages(c.messages);
    ClientHistogramToProto(c.first_message, out->mutable_first_message());
  }
  if (!open_loop) return;
  out->set_scheduled(c.scheduled);
  out->set_unsent(c.unsent);
  ClientHistogramToProto(c.latency_uncorrected, out->mutable_latency_uncorrected());
  ClientHistogramToProto(c.schedule_lag, out->mutable_schedule_lag());
}

absl::Status ClientFromProto(const v1::ReportClient& in, const std::string& where, ClientFigures* c) {
  c->seconds = in.seconds();
  c->client_cpu_seconds = in.client_cpu_seconds();
  c->sent = Count(in.sent());
  c->completed = Count(in.completed());
  c->ok = Count(in.ok());
  c->response_bytes = Count(in.response_bytes());
  c->wrong_item_count = Count(in.wrong_item_count());
  c->wrong_content = Count(in.wrong_content());
  c->verified = Count(in.verified());
  for (const auto& [name, n] : in.errors_by_code()) {
    int code = 1;
    while (code < ClientFigures::kStatusCodes && StatusCodeName(code) != name) ++code;
    if (code == ClientFigures::kStatusCodes) return Invalid(where, absl::StrCat("unknown status code '", name, "'"));
    c->errors_by_code[code] = Count(n);
  }
  // Open loop only: absent from a closed loop's report.
  c->scheduled = Count(in.scheduled());
  c->unsent = Count(in.unsent());
  absl::Status s = ClientHistogramFromProto(in.latency(), where + ".latency", &c->latency);
  if (s.ok() && in.has_latency_uncorrected()) {
    s = ClientHistogramFromProto(in.latency_uncorrected(), where + ".latency_uncorrected", &c->latency_uncorrected);
  }
  if (s.ok() && in.has_schedule_lag()) {
    s = ClientHistogramFromProto(in.schedule_lag(), where + ".schedule_lag", &c->schedule_lag);
  }
  c->streaming = in.has_messages();
  c->messages = Count(in.messages());
  if (s.ok() && in.has_first_message()) {
    s = ClientHistogramFromProto(in.first_message(), where + ".first_message", &c->first_message);
  }
  return s;
}

// --- ServerFigures, replicas, MachineWindow (written only) --------------------------

void CountsToProto(const AllocationCounts& c, v1::ReportAllocations* out) {
  out->set_allocs(c.allocs);
  out->set_frees(c.frees);
  out->set_bytes(c.bytes);
}

void PhaseToProto(const ServerPhase& p, v1::ReportServerPhase* out) {
  SummaryToProto(p.latency, out->mutable_latency());
  CountsToProto(p.allocations, out->mutable_allocations());
}

void ServerToProto(const ServerFigures& s, v1::ReportServer* out) {
  out->set_available(s.available);
  out->set_note(s.note);
  if (!s.available) return;
  out->set_mode(s.mode);
  out->set_malloc(s.malloc);
  out->set_pid(static_cast<int32_t>(s.pid));
  out->set_protobuf_version(s.protobuf_version);
  out->set_grpc_version(s.grpc_version);
  out->set_seconds(s.seconds);
  out->set_rpcs(s.rpcs);
  out->set_rpc_errors(s.rpc_errors);
  out->set_rpc_over_budget(s.rpc_over_budget);
  out->set_rpc_abandoned(s.rpc_abandoned);
  out->mutable_budget()->set_enabled(s.budget_enabled);
  out->mutable_budget()->set_capacity_bytes(s.budget_capacity_bytes);
  out->mutable_budget()->set_peak_bytes(s.budget_peak_bytes);
  out->mutable_trim()->set_trims(s.trims);
  out->mutable_trim()->set_seconds(s.trim_seconds);
  PhaseToProto(s.build, out->mutable_build());
  PhaseToProto(s.serialize, out->mutable_serialize());
  PhaseToProto(s.release, out->mutable_release());
  CountsToProto(s.process, out->mutable_process_allocations());
  out->set_source(s.source);
  out->set_rpcs_from_client(s.rpcs_from_client);
  out->set_process_counted(s.process_counted);
  out->set_cpu_user_seconds(s.cpu_user_seconds);
  out->set_cpu_system_seconds(s.cpu_system_seconds);
  out->set_rss_bytes(s.rss_bytes);
  out->set_peak_rss_bytes(s.peak_rss_bytes);
  v1::ReportMallocHeap* heap = out->mutable_malloc_heap();
  heap->set_available(s.malloc_heap_available);
  heap->set_arena_bytes(s.heap_arena_bytes);
  heap->set_in_use_bytes(s.heap_in_use_bytes);
  heap->set_free_bytes(s.heap_free_bytes);
  v1::ReportStore* store = out->mutable_store();
  store->set_released(s.released);
  store->set_arena_space_allocated(s.arena_space_allocated);
  store->set_arena_space_used(s.arena_space_used);
  store->set_arena_overflows(s.arena_overflows);
  if (s.store_available) store->set_unpooled(s.unpooled);
}

// `target` is the replicated target's summed figures: each replica's share of them.
void ReplicaToProto(const ReplicaFigures& r, const ServerFigures& target, v1::ReportReplica* out) {
  const ServerFigures& s = r.server;
  out->set_address(r.address);
  out->set_available(s.available);
  out->set_note(s.note);
  if (!s.available) return;
  out->set_pid(static_cast<int32_t>(s.pid));
  out->set_rpcs(s.rpcs);
  out->set_rpc_errors(s.rpc_errors);
  out->set_share_of_rpcs(target.rpcs ? static_cast<double>(s.rpcs) / target.rpcs : 0.0);
  out->set_cpu_seconds(s.cpu_user_seconds + s.cpu_system_seconds);
  out->set_cpu_us_per_rpc(s.CpuMicrosPerRpc());
  out->set_build_allocs_per_rpc(s.PerRpc(s.build.allocations.allocs));
  out->set_process_allocs_per_rpc(s.PerRpc(s.process.allocs));
  out->set_rss_bytes(s.rss_bytes);
  out->set_peak_rss_bytes(s.peak_rss_bytes);
}

void MachineToProto(const MachineWindow& m, v1::ReportMachine* out) {
  out->set_seconds(m.seconds);
  out->set_cpus(m.cpus);
  *out->mutable_busy_cpu_seconds() = NumberOrNull(m.busy_cpu_seconds);
  *out->mutable_other_cpu_seconds() = NumberOrNull(m.other_cpu_seconds);
  *out->mutable_other_cpu_share() = NumberOrNull(m.OtherShare());
  out->set_disturbed(Disturbed(m));
}

Value PairedRatioOrNull(const std::optional<PairedRatio>& p) {
  if (!p) return ObjectOrNull(nullptr);
  v1::ReportPairedRatio out;
  out.set_median(p->median);
  out.set_min(p->min);
  out.set_max(p->max);
  out.set_rounds(p->rounds);
  out.set_skipped(p->skipped);
  out.set_measurable(p->measurable());
  return ObjectOrNull(&out);
}

// --- RoundResult, TargetResult ------------------------------------------------------

template <typename Window>  // RoundResult or TargetResult
void FiguresToProto(const std::vector<Figure>& figures, const Window& w,
                    google::protobuf::Map<std::string, Value>* out) {
  for (const Figure& f : figures) (*out)[f.key] = NumberOrNull(f.Of(w));
}

void RoundToProto(const RoundResult& r, const std::vector<Figure>& figures, bool open_loop, v1::ReportRound* out) {
  out->set_round(r.round);
  out->set_window_start_unix_ms(r.window_start_unix_ms);
  out->set_window_end_unix_ms(r.window_end_unix_ms);
  FiguresToProto(figures, r, out->mutable_figures());
  ClientToProto(r.client, open_loop, out->mutable_client());
  ServerToProto(r.server, out->mutable_server());
  for (const ReplicaFigures& replica : r.replicas) ReplicaToProto(replica, r.server, out->add_replicas());
  MachineToProto(r.machine, out->mutable_machine());
}

absl::Status RoundFromProto(const v1::ReportRound& in, const std::string& where, RoundResult* r) {
  r->round = in.round();
  // 0 (unknown) in reports from before they were written.
  r->window_start_unix_ms = static_cast<int64_t>(in.window_start_unix_ms());
  r->window_end_unix_ms = static_cast<int64_t>(in.window_end_unix_ms());
  r->server = UnavailableServerFigures(kServerNotReadBack);
  return ClientFromProto(in.client(), absl::StrCat(where, ".rounds[", r->round, "].client"), &r->client);
}

// What a ratio or a share figure needs besides the target: the run (its baseline and
// ceiling).
void TargetToProto(const RunReport& report, size_t ti, const std::vector<Figure>& figures, v1::ReportTarget* out) {
  const TargetResult& t = report.targets[ti];
  out->set_name(t.spec.name);
  out->set_address(t.spec.address);
  FiguresToProto(figures, t, out->mutable_figures());
  for (const Figure& f : figures) {
    (*out->mutable_ratios_to_baseline())[f.key] = PairedRatioOrNull(RatioToBaseline(report, ti, f));
  }
  const auto [lo, hi] = t.QpsRange();
  out->set_qps_min_round(lo);
  out->set_qps_max_round(hi);
  *out->mutable_qps_share_of_ceiling() = NumberOrNull(report.QpsShareOfCeiling(ti));
  v1::ReportShareOfCeiling share;
  *share.mutable_qps() = PairedRatioOrNull(report.PairedQpsShareOfCeiling(ti));
  *out->mutable_share_of_ceiling() = ObjectOrNull(report.CeilingIndex() >= 0 ? &share : nullptr);
  const bool open_loop = report.options.open_loop();
  ClientToProto(t.client, open_loop, out->mutable_client());
  for (const std::string& backend : t.spec.Backends()) out->add_backends(backend);
  ServerToProto(t.server, out->mutable_server());
  for (const ReplicaFigures& replica : t.replicas) ReplicaToProto(replica, t.server, out->add_replicas());
  MachineToProto(t.machine, out->mutable_machine());
  for (const RoundResult& r : t.rounds) {
    if (Disturbed(r.machine)) out->add_disturbed_rounds(r.round);
    RoundToProto(r, figures, open_loop, out->add_rounds());
  }
}

// The client side only; the server's figures are not read back (report_reader.h).
absl::Status TargetFromProto(const v1::ReportTarget& in, const std::string& where, TargetResult* t) {
  if (in.name() != t->spec.name) return Invalid(where, "name differs from parameters.targets");
  absl::Status s = ClientFromProto(in.client(), where + ".client", &t->client);
  t->server = UnavailableServerFigures(kServerNotReadBack);
  for (const v1::ReportRound& round : in.rounds()) {
    if (!s.ok()) break;
    s = RoundFromProto(round, where, &t->rounds.emplace_back());
  }
  return s;
}

// --- LoadOptions -----------------------------------------------------------------

void ParametersToProto(const RunReport& report, v1::ReportParameters* out) {
  const LoadOptions& o = report.options;
  // One NAME=ADDRESS per backend, as on the command line (a replicated target repeats
  // its name); ParametersFromProto groups them back.
  for (const TargetSpec& t : o.targets) {
    for (const std::string& b : t.Backends()) out->add_targets(absl::StrCat(t.name, "=", b));
  }
  out->set_baseline(o.targets.empty() ? "" : o.targets[0].name);
  if (report.CeilingIndex() >= 0) {
    out->mutable_ceiling()->set_string_value(report.targets[report.CeilingIndex()].spec.name);
  } else {
    *out->mutable_ceiling() = NumberOrNull(std::nullopt);
  }
  out->set_warmup_seconds(absl::ToDoubleSeconds(o.warmup));
  out->set_duration_seconds(absl::ToDoubleSeconds(o.duration));
  out->set_rounds(o.rounds);
  out->set_loop(o.open_loop() ? "open" : "closed");
  out->set_rate(o.rate);
  out->set_concurrency(o.concurrency);
  out->set_connections(o.connections);
  out->set_lb_policy(o.lb_policy);
  out->set_threads(o.threads);
  out->set_lookahead_bytes(o.lookahead_bytes);
  if (!o.generic()) {
    out->set_items(o.items ? o.items : kDefaultItemCount);
    out->set_profile(std::string(TextProfileName(o.profile)));
    out->set_seed(o.seed);
    out->set_variants(o.variants);
    out->set_verify_every(o.verify_every);
  }
  out->set_max_error_rate(o.max_error_rate);
  out->set_call(o.call.method);
  out->set_request_type(o.call.request_type);
  out->set_reply_type(o.call.reply_type);
  out->set_server_streaming(o.call.server_streaming);
  out->set_client_streaming(o.call.client_streaming);
  out->set_call_requests(static_cast<int32_t>(o.call.requests.size()));
  for (const auto& [key, value] : o.metadata) out->add_metadata_keys(key);
  out->set_total(static_cast<int32_t>(o.total));  // at most 1e9 (ValidateLoadOptions)
  out->set_timeout_seconds(absl::ToDoubleSeconds(o.rpc_deadline));
  out->set_name(o.name);
  for (const auto& [key, value] : o.tags) (*out->mutable_tags())[key] = value;
  out->set_compression(o.compression == GRPC_COMPRESS_GZIP      ? "gzip"
                       : o.compression == GRPC_COMPRESS_DEFLATE ? "deflate"
                                                                : "identity");
}

absl::Status ParametersFromProto(const v1::ReportParameters& p, LoadOptions* o) {
  absl::StatusOr<std::vector<TargetSpec>> specs =
      ParseTargetFlags(std::vector<std::string>(p.targets().begin(), p.targets().end()));
  if (!specs.ok()) return Invalid("parameters.targets", std::string(specs.status().message()));
  o->targets = *std::move(specs);
  if (!p.lb_policy().empty()) o->lb_policy = p.lb_policy();  // else the default, as then
  o->warmup = absl::Seconds(p.warmup_seconds());
  o->duration = absl::Seconds(p.duration_seconds());
  o->rounds = p.rounds();
  o->rate = p.rate();
  o->concurrency = p.concurrency();
  o->connections = p.connections();
  o->threads = p.threads();
  o->lookahead_bytes = p.lookahead_bytes();
  o->items = p.items();
  if (p.has_profile() && !ParseTextProfile(p.profile(), &o->profile)) {
    return Invalid("parameters.profile", "unknown profile '" + p.profile() + "'");
  }
  if (p.has_seed()) o->seed = p.seed();
  if (p.has_variants()) o->variants = p.variants();
  if (p.has_verify_every()) o->verify_every = p.verify_every();
  o->max_error_rate = p.max_error_rate();
  o->call.method = p.call();
  o->call.request_type = p.request_type();
  o->call.reply_type = p.reply_type();
  o->call.server_streaming = p.server_streaming();
  o->call.client_streaming = p.client_streaming();
  // The requests' bytes are not in a report; their number is (for DescribeWorkload).
  o->call.requests.assign(std::max(0, p.call_requests()), std::string());
  for (const std::string& key : p.metadata_keys()) o->metadata.emplace_back(key, "");
  o->total = p.total();
  if (p.timeout_seconds() > 0) o->rpc_deadline = absl::Seconds(p.timeout_seconds());
  o->name = p.name();
  o->tags.assign(p.tags().begin(), p.tags().end());
  std::sort(o->tags.begin(), o->tags.end());
  absl::StatusOr<grpc_compression_algorithm> compression = ParseCompressionFlag(p.compression());
  if (!compression.ok()) return Invalid("parameters.compression", "unknown compression '" + p.compression() + "'");
  o->compression = *compression;
  return absl::OkStatus();
}

// --- the document ----------------------------------------------------------------------

constexpr char kTool[] = "reco_load";

void HistogramLayoutToProto(v1::ReportHistogramLayout* out) {
  out->set_sub_bucket_bits(LatencyHistogram::kSubBucketBits);
  out->set_max_exponent(LatencyHistogram::kMaxExponent);
  out->set_bucket_count(LatencyHistogram::kBucketCount);
}

// The buckets index into the writer's LatencyHistogram layout: it must be ours.
absl::Status CheckHistogramLayout(const v1::LoadReport& in) {
  if (!in.has_histogram_layout()) {
    return Invalid("histogram_layout", "missing (written by a reco_load older than `reco_load merge`; rerun it)");
  }
  v1::ReportHistogramLayout ours;
  HistogramLayoutToProto(&ours);
  const v1::ReportHistogramLayout& theirs = in.histogram_layout();
  if (theirs.sub_bucket_bits() != ours.sub_bucket_bits() || theirs.max_exponent() != ours.max_exponent() ||
      theirs.bucket_count() != ours.bucket_count()) {
    return Invalid("histogram_layout", absl::StrCat("differs from this reco_load's (", theirs.ShortDebugString(),
                                                    " there, ", ours.ShortDebugString(), " here)"));
  }
  return absl::OkStatus();
}

}  // namespace

google::protobuf::util::Status PrintReportJson(const Message& message, std::string* json) {
  // MessageToJsonString would serialize maps in hash order; a deterministic
  // serialization sorts them by key.
  std::string binary;
  {
    google::protobuf::io::StringOutputStream stream(&binary);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  static google::protobuf::util::TypeResolver* const resolver =
      google::protobuf::util::NewTypeResolverForDescriptorPool(kTypeUrlPrefix,
                                                               google::protobuf::DescriptorPool::generated_pool());
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  return google::protobuf::util::BinaryToJsonString(
      resolver, absl::StrCat(kTypeUrlPrefix, "/", message.GetDescriptor()->full_name()), binary, json, options);
}

v1::LoadReport LoadReportOf(const RunReport& report) {
  v1::LoadReport out;
  out.set_tool(kTool);
  ParametersToProto(report, out.mutable_parameters());
  *out.mutable_environment() = report.environment;
  HistogramLayoutToProto(out.mutable_histogram_layout());
  out.mutable_noise_guard()->set_disturbed_other_cpu_share(kDisturbedOtherCpuShare);
  out.mutable_noise_guard()->set_client_busy_share(kClientBusyShare);
  const std::vector<Figure> figures = ReportFigures(report.options);
  for (size_t ti = 0; ti < report.targets.size(); ++ti) TargetToProto(report, ti, figures, out.add_targets());
  out.set_error_rate(report.error_rate());
  out.set_wall_seconds(report.wall_seconds);
  for (const std::string& w : report.warnings) out.add_warnings(w);
  for (const RequirementResult& q : report.requirements) *out.add_requirements() = q;
  return out;
}

absl::StatusOr<RunReport> RunReportOf(const v1::LoadReport& in) {
  if (in.tool() != kTool) return absl::InvalidArgumentError("not a reco_load report (no \"tool\": \"reco_load\")");
  if (absl::Status s = CheckHistogramLayout(in); !s.ok()) return s;
  RunReport r;
  if (absl::Status s = ParametersFromProto(in.parameters(), &r.options); !s.ok()) return s;
  r.environment = in.environment();
  r.warnings.assign(in.warnings().begin(), in.warnings().end());
  r.wall_seconds = in.wall_seconds();
  if (static_cast<size_t>(in.targets_size()) != r.options.targets.size()) {
    return Invalid("targets",
                   absl::StrCat(in.targets_size(), " targets but parameters.targets lists ", r.options.targets.size()));
  }
  for (size_t ti = 0; ti < r.options.targets.size(); ++ti) {
    TargetResult& t = r.targets.emplace_back();
    t.spec = r.options.targets[ti];
    const std::string where = absl::StrCat("targets[", ti, "] (", t.spec.name, ")");
    if (absl::Status s = TargetFromProto(in.targets(ti), where, &t); !s.ok()) return s;
  }
  return r;
}

}  // namespace reco
