// See load_options.h.
#include "client/load_options.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include <arpa/inet.h>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "client/request_template.h"
#include "core/request.h"
#include "rpc/port_number.h"
#include "schema/method_schema.h"

namespace reco {
namespace {

absl::Status Bad(absl::string_view flag, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(flag, " ", what));
}

constexpr char kDnsScheme[] = "dns:///";

// --rate: 0.001/s (one call in ~17 minutes) keeps the interval between calls finite;
// 1e7/s is past what one client process sends.
constexpr double kMinRate = 0.001, kMaxRate = 1e7;
constexpr char kRateRange[] = "must be from 0.001 to 10000000 requests per second (leave it out for a closed loop)";
// Flags' ranges. A day bounds a window (as --total / --rate); an hour bounds a wait
// for one answer. inf, or 1e300 seconds, ran forever and printed nothing.
constexpr absl::Duration kMinDuration = absl::Milliseconds(10);
constexpr absl::Duration kMaxWindow = absl::Hours(24);
constexpr absl::Duration kMaxDeadline = absl::Hours(1);

// The host of HOST:PORT or [V6]:PORT, without brackets.
absl::string_view HostOf(absl::string_view host_port) {
  absl::string_view host = host_port.substr(0, host_port.rfind(':'));
  if (absl::ConsumePrefix(&host, "[")) absl::ConsumeSuffix(&host, "]");
  return host;
}

// The window, the waits and the pace: each time flag within its range, --rate within
// its own, and --total's window (with --rate) at most a day.
absl::Status ValidateTimes(const LoadOptions& o) {
  // A window shorter than a few calls measures nothing (1ns reported an absurd QPS);
  // the windows the tests run are all well above the minimum.
  if (o.duration < kMinDuration || o.duration > kMaxWindow) {
    return Bad("--duration",
               absl::StrCat("must be from ", absl::FormatDuration(kMinDuration), " to ",
                            absl::FormatDuration(kMaxWindow), ", got ", absl::FormatDuration(o.duration)));
  }
  if (o.warmup < absl::ZeroDuration() || o.warmup > kMaxWindow) {
    return Bad("--warmup", absl::StrCat("must be from 0 to ", absl::FormatDuration(kMaxWindow), ", got ",
                                        absl::FormatDuration(o.warmup)));
  }
  if (o.run_timeout < absl::ZeroDuration() || o.run_timeout > absl::Hours(24 * 7)) {
    return Bad("--run_timeout",
               absl::StrCat("must be from 0 (none) to 168h, got ", absl::FormatDuration(o.run_timeout)));
  }
  if (o.align_start < absl::ZeroDuration() || o.align_start > absl::Hours(1)) {
    return Bad("--align_start",
               absl::StrCat("must be from 0 (no wait) to 1h, got ", absl::FormatDuration(o.align_start)));
  }
  for (auto [flag, d] : {std::pair{"--probe_deadline", o.probe_deadline}, std::pair{"--timeout", o.rpc_deadline}}) {
    if (d <= absl::ZeroDuration() || d > kMaxDeadline) {
      return Bad(flag, absl::StrCat("must be positive and at most ", absl::FormatDuration(kMaxDeadline), ", got ",
                                    absl::FormatDuration(d)));
    }
  }
  if (o.rate != 0 && !(o.rate >= kMinRate && o.rate <= kMaxRate)) {
    return Bad("--rate", absl::StrCat(kRateRange, ", got ", o.rate));
  }
  if (o.total < 0 || o.total > 1'000'000'000) {
    return Bad("--total",
               absl::StrCat("must be from 1 to 1000000000 calls (0 or absent: by --duration), got ", o.total));
  }
  if (o.total > 0 && o.open_loop() && o.total / o.rate > absl::ToDoubleSeconds(kMaxWindow)) {
    return Bad("--total", "with --rate makes a window of more than a day (total / rate seconds)");
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> TargetSpec::Backends() const { return absl::StrSplit(address, ','); }

bool TargetSpec::IsDns() const { return absl::StartsWith(address, kDnsScheme); }

namespace {

// `spec`, or the error naming --target when its name holds a character a name may not.
absl::StatusOr<TargetSpec> CheckTargetName(const TargetSpec& spec, absl::string_view value) {
  for (char c : spec.name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      return Bad("--target", absl::StrCat("'", value, "': the name may hold letters, digits, '_', '-' and '.' only"));
    }
  }
  return spec;
}

}  // namespace

absl::StatusOr<TargetSpec> ParseTargetSpec(absl::string_view value) {
  const std::string example =
      "expected [NAME=]HOST:PORT, [NAME=]dns:///HOST:PORT or [NAME=]unix:PATH, e.g. heap=127.0.0.1:50051 or "
      "127.0.0.1:50051";
  size_t eq = value.find('=');
  if (eq == 0) return Bad("--target", absl::StrCat("'", value, "': ", example));
  TargetSpec spec;
  if (eq == absl::string_view::npos) {
    // A bare address, as ghz takes it: named after itself, each character a name may
    // not hold made '_' (127.0.0.1:50051 -> 127.0.0.1_50051).
    spec.address = std::string(value);
    spec.name = spec.address;
    absl::string_view unschemed = spec.name;
    if (absl::ConsumePrefix(&unschemed, kDnsScheme)) spec.name = std::string(unschemed);
    for (char& c : spec.name) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    }
  } else {
    spec = TargetSpec{std::string(value.substr(0, eq)), std::string(value.substr(eq + 1))};
  }
  for (const char* scheme : {"unix:", "unix-abstract:"}) {  // a local socket: gRPC's own schemes
    absl::string_view path = spec.address;
    if (!absl::ConsumePrefix(&path, scheme)) continue;
    if (path.empty()) return Bad("--target", absl::StrCat("'", value, "': ", scheme, " needs a path"));
    return CheckTargetName(spec, value);
  }
  absl::string_view host_port = spec.address;
  // Only dns:/// (no authority): asking a chosen DNS server is gRPC's c-ares
  // resolver's business, and getaddrinfo (the per-replica stats) could not follow it.
  absl::ConsumePrefix(&host_port, kDnsScheme);
  size_t colon = host_port.rfind(':');
  if (colon == absl::string_view::npos || colon == 0 || absl::StrContains(host_port, '/')) {
    return Bad("--target", absl::StrCat("'", value, "': ", example));
  }
  const std::optional<int> port = PortNumber(host_port.substr(colon + 1));
  if (!port.has_value() || *port < 1) {
    return Bad("--target", absl::StrCat("'", value, "': the port must be a number from 1 to 65535"));
  }
  return CheckTargetName(spec, value);
}

absl::StatusOr<std::vector<TargetSpec>> ParseTargetFlags(const std::vector<std::string>& values) {
  std::vector<TargetSpec> targets;
  std::vector<std::vector<std::string>> backends;  // parallel to targets
  for (const std::string& v : values) {
    absl::StatusOr<TargetSpec> t = ParseTargetSpec(v);
    if (!t.ok()) return t.status();
    size_t i = 0;
    while (i < targets.size() && targets[i].name != t->name) ++i;
    if (i == targets.size()) {
      targets.push_back(*t);
      backends.push_back({t->address});
      continue;
    }
    std::vector<std::string>& b = backends[i];
    if (std::find(b.begin(), b.end(), t->address) != b.end()) {
      return Bad("--target", absl::StrCat("'", v, "' is given twice"));
    }
    if (t->IsDns() || targets[i].IsDns()) {
      return Bad("--target", absl::StrCat("'", v, "': a dns:/// address stands for all of ", t->name,
                                          "'s backends; give it alone, not with other addresses for the same name"));
    }
    b.push_back(t->address);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (backends[i].size() < 2) continue;
    int families = 0;
    for (const std::string& a : backends[i]) {
      const std::string host(HostOf(a));
      unsigned char buf[16];
      const bool v4 = inet_pton(AF_INET, host.c_str(), buf) == 1, v6 = inet_pton(AF_INET6, host.c_str(), buf) == 1;
      if (!v4 && !v6) {
        return Bad("--target", absl::StrCat("'", targets[i].name, "=", a,
                                            "': with several backends each must be an IP "
                                            "address (gRPC balances over an ipv4:/ipv6: list); for a name use one ",
                                            targets[i].name, "=dns:///", a));
      }
      families |= v4 ? 1 : 2;
    }
    if (families == 3) {
      return Bad("--target", absl::StrCat("'", targets[i].name,
                                          "': mixes IPv4 and IPv6 backends; gRPC's address "
                                          "list takes one family"));
    }
    targets[i].address = absl::StrJoin(backends[i], ",");
  }
  return targets;
}

std::string GrpcTargetOf(const TargetSpec& spec) {
  if (spec.IsDns() || !absl::StrContains(spec.address, ',')) return spec.address;
  return absl::StrCat(absl::StartsWith(spec.address, "[") ? "ipv6:" : "ipv4:", spec.address);
}

std::string LbServiceConfigJson(absl::string_view lb_policy) {
  return absl::StrCat(R"({"loadBalancingConfig":[{")", lb_policy, R"(":{}}]})");
}

absl::StatusOr<absl::Duration> ParseDurationFlag(absl::string_view flag, absl::string_view value) {
  double seconds;
  if (absl::SimpleAtod(value, &seconds)) {
    // "nan" parses; absl::Seconds(NaN) is no duration at all. Infinities and values
    // past absl's range (1e300) become InfiniteDuration, refused by the flag's range.
    if (std::isnan(seconds)) return Bad(flag, absl::StrCat("'", value, "' is not a number of seconds"));
    return absl::Seconds(seconds);
  }
  absl::Duration d;
  if (absl::ParseDuration(value, &d)) return d;
  return Bad(flag, absl::StrCat("'", value, "' is not a duration: give seconds (5, 2.5) or a unit (500ms, 10s, 1m)"));
}

absl::StatusOr<double> ParseRateFlag(absl::string_view value) {
  if (value.empty()) return 0.0;
  double rate;
  if (!absl::SimpleAtod(value, &rate) || !(rate >= kMinRate && rate <= kMaxRate)) {
    return Bad("--rate", absl::StrCat(kRateRange, ", got '", value, "'"));
  }
  return rate;
}

namespace {

// The name of a --flagfile argument's files ("--flagfile=a,b"), or nullopt.
std::optional<std::string> FlagfileValue(const std::vector<std::string>& args, size_t* i) {
  absl::string_view arg = args[*i];
  if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) return std::nullopt;
  if (arg == "flagfile" && *i + 1 < args.size()) return args[++*i];
  if (absl::ConsumePrefix(&arg, "flagfile=")) return std::string(arg);
  return std::nullopt;
}

// args with each --flagfile replaced by its files' flags, as absl reads them: one flag
// per line, blank lines and lines starting with '#' skipped, nested files followed
// (at most 8 deep). A file that cannot be read adds nothing: the flag parser, which
// runs next, names it and exits 2.
void ExpandFlagfiles(const std::vector<std::string>& args, int depth, std::vector<std::string>* out) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      out->insert(out->end(), args.begin() + i, args.end());
      return;
    }
    const std::optional<std::string> files = FlagfileValue(args, &i);
    if (!files.has_value()) {
      out->push_back(args[i]);
      continue;
    }
    if (depth >= 8) continue;
    for (absl::string_view file : absl::StrSplit(*files, ',', absl::SkipEmpty())) {
      std::ifstream in{std::string(file)};
      std::vector<std::string> lines;
      for (std::string line; std::getline(in, line);) {
        absl::string_view flag = absl::StripAsciiWhitespace(line);
        if (!flag.empty() && flag[0] != '#') lines.emplace_back(flag);
      }
      ExpandFlagfiles(lines, depth + 1, out);
    }
  }
}

}  // namespace

std::vector<std::string> CollectRepeatedFlag(int argc, char** argv, absl::string_view name, bool comma_lists) {
  std::vector<std::string> args;
  ExpandFlagfiles(std::vector<std::string>(argv + std::min(argc, 1), argv + argc), 0, &args);
  std::vector<std::string> values;
  auto add = [&](absl::string_view value) {
    if (!comma_lists) {
      values.emplace_back(value);
      return;
    }
    for (absl::string_view v : absl::StrSplit(value, ',')) values.emplace_back(v);
  };
  const std::string with_value = absl::StrCat(name, "=");
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") break;
    if (!absl::ConsumePrefix(&arg, "--")) {
      if (!absl::ConsumePrefix(&arg, "-")) continue;
    }
    if (arg == name && i + 1 < args.size()) {
      add(args[++i]);
    } else if (absl::ConsumePrefix(&arg, with_value)) {
      add(arg);
    }
  }
  return values;
}

std::vector<std::string> CollectTargetFlags(int argc, char** argv) {
  return CollectRepeatedFlag(argc, argv, "target", /*comma_lists=*/true);
}

absl::Time NextAlignedStart(absl::Time now, absl::Duration period) {
  if (period <= absl::ZeroDuration()) return now;
  const absl::Duration since_epoch = now - absl::UnixEpoch();
  return absl::UnixEpoch() + (absl::Floor(since_epoch, period) + period);
}

absl::Status ValidateLoadOptions(const LoadOptions& o) {
  if (o.targets.empty()) return Bad("--target", "is required: give at least one NAME=HOST:PORT");
  std::set<std::string> names;
  for (const TargetSpec& t : o.targets) {
    if (!names.insert(t.name).second) return Bad("--target", absl::StrCat("name '", t.name, "' is given twice"));
  }
  if (absl::Status times = ValidateTimes(o); !times.ok()) return times;
  if (o.rounds < 1 || o.rounds > 1000) return Bad("--rounds", absl::StrCat("must be from 1 to 1000, got ", o.rounds));
  if (o.concurrency < 1 || o.concurrency > 100000) {
    return Bad("--concurrency", absl::StrCat("must be from 1 to 100000, got ", o.concurrency));
  }
  if (o.connections < 1 || o.connections > 1000) {
    return Bad("--connections", absl::StrCat("must be from 1 to 1000, got ", o.connections));
  }
  if (o.lb_policy != "round_robin" && o.lb_policy != "pick_first") {
    return Bad("--lb_policy", absl::StrCat("must be round_robin or pick_first, got '", o.lb_policy, "'"));
  }
  if (o.lookahead_bytes < 0) {
    return Bad("--lookahead_bytes", absl::StrCat("must be 0 (gRPC's default) or positive, got ", o.lookahead_bytes));
  }
  if (o.max_receive_message_bytes < 4096) {
    return Bad("--max_receive_message_bytes",
               absl::StrCat("must be from 4096 to 2147483647, got ", o.max_receive_message_bytes));
  }
  if (o.threads < 0 || o.threads > 256) {
    return Bad("--threads", absl::StrCat("must be from 1 to 256, or 0 for one per connection, got ", o.threads));
  }
  if (o.items > kMaxItemCount) {
    return Bad("--items", absl::StrCat("must be from 0 to ", kMaxItemCount, " (0 means the service default, ",
                                       kDefaultItemCount, "), got ", o.items));
  }
  if (o.variants < 1 || o.variants > 64) {
    return Bad("--variants", absl::StrCat("must be from 1 to 64, got ", o.variants));
  }
  if (o.verify_every < 1) return Bad("--verify_every", absl::StrCat("must be 1 or more, got ", o.verify_every));
  if (!(o.max_error_rate >= 0 && o.max_error_rate <= 1)) {
    return Bad("--max_error_rate", absl::StrCat("must be a fraction from 0 to 1, got ", o.max_error_rate));
  }
  if (o.tls_cert_pem.empty() != o.tls_key_pem.empty()) {
    return Bad(o.tls_cert_pem.empty() ? "--tls_key" : "--tls_cert",
               o.tls_cert_pem.empty()
                   ? "needs --tls_cert (a client certificate is --tls_cert CHAIN.pem --tls_key KEY.pem)"
                   : "needs --tls_key (a client certificate is --tls_cert CHAIN.pem --tls_key KEY.pem)");
  }
  if (!o.tls_cert_pem.empty() && o.tls_ca_pem.empty() && !o.tls_skip_verify) {
    return Bad("--tls_cert", "needs --tls_ca (a client certificate only applies to TLS)");
  }
  if (o.generic() && o.call.requests.empty()) return Bad("--call", "has no request to send");
  return absl::OkStatus();
}

absl::StatusOr<grpc_compression_algorithm> ParseCompressionFlag(absl::string_view name) {
  if (name == "identity" || name.empty()) return GRPC_COMPRESS_NONE;
  if (name == "gzip") return GRPC_COMPRESS_GZIP;
  if (name == "deflate") return GRPC_COMPRESS_DEFLATE;
  return Bad("--compression", absl::StrCat("'", name, "' is not one of identity, gzip, deflate"));
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseTagsFlag(absl::string_view json) {
  std::vector<std::pair<std::string, std::string>> tags;
  if (json.empty()) return tags;
  google::protobuf::Struct object;
  const auto parsed = google::protobuf::util::JsonStringToMessage(std::string(json), &object);
  if (!parsed.ok()) {
    return Bad("--tags", absl::StrCat("not a JSON object of strings, e.g. '{\"env\": \"ci\"}' (",
                                      std::string(parsed.message()), ")"));
  }
  for (const auto& [key, value] : object.fields()) {
    if (value.kind_case() != google::protobuf::Value::kStringValue) {
      return Bad("--tags", absl::StrCat("the value of \"", key, "\" is not a string"));
    }
    tags.emplace_back(key, value.string_value());
  }
  std::sort(tags.begin(), tags.end());  // a Struct's map has no order: the reports' is the keys'
  return tags;
}

absl::StatusOr<std::pair<std::string, std::string>> ParseMetadataFlag(absl::string_view value) {
  const size_t eq = value.find('=');
  if (eq == absl::string_view::npos || eq == 0) {
    return Bad("--metadata", absl::StrCat("'", value, "': expected KEY=VALUE, e.g. authorization=Bearer x"));
  }
  const std::string key = absl::AsciiStrToLower(value.substr(0, eq));
  const absl::string_view v = value.substr(eq + 1);
  for (char c : key) {
    if (!(absl::ascii_isdigit(c) || (c >= 'a' && c <= 'z') || c == '-' || c == '_' || c == '.')) {
      return Bad("--metadata", absl::StrCat("key '", key, "': only letters, digits, '-', '_' and '.' may appear"));
    }
  }
  if (absl::StartsWith(key, "grpc-")) {
    return Bad("--metadata", absl::StrCat("key '", key, "': keys starting with grpc- are gRPC's own"));
  }
  if (!absl::EndsWith(key, "-bin")) {
    for (char c : v) {
      if (c < 0x20 || c > 0x7e) {
        return Bad("--metadata",
                   absl::StrCat("value of '", key, "': only printable ASCII (use a key ending in -bin for bytes)"));
      }
    }
  }
  if (absl::Status s = RequestTemplate::Parse(v, absl::StrCat("--metadata ", key)).status(); !s.ok()) return s;
  return std::pair<std::string, std::string>(key, std::string(v));
}

std::string DescribeWorkload(const LoadOptions& o) {
  const std::string streaming =
      o.call.server_streaming || o.call.client_streaming
          ? absl::StrCat(" (", MethodKind(o.call.client_streaming, o.call.server_streaming), ")")
          : "";
  if (o.generic() && o.call.render_request) {
    return absl::StrCat(o.call.method, streaming, ", a request per call from --data");
  }
  if (o.generic()) return absl::StrCat(o.call.method, streaming, ", ", o.call.requests.size(), " request(s)");
  return absl::StrCat(o.items ? o.items : kDefaultItemCount, " items, ", TextProfileName(o.profile), " text");
}

std::string DescribeWindow(const LoadOptions& o) {
  if (o.counted()) return absl::StrCat(o.total, " calls measured");
  if (o.total > 0) return absl::StrCat(o.total, " calls scheduled");
  return absl::StrCat(absl::FormatDuration(o.duration), " measured");
}

int ResolvedThreads(const LoadOptions& options) {
  int threads = options.threads;
  if (threads == 0) {
    const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::min(options.connections, cpus);
  }
  return std::clamp(std::min(threads, options.concurrency), 1, 256);
}

}  // namespace reco
