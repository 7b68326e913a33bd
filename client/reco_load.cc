// reco_load: drives gRPC servers with the gRPC async API and compares them:
// client-side throughput and latency, server-side allocations, CPU and memory per RPC
// (from each server's reco.v1.ServerStats, when it serves it). By default it drives
// reco.v1.Recommender and checks every reply; --call drives any unary method of your
// own service (client/call_flags.h).
//
//   reco_load --target heap=127.0.0.1:50051 --target arena_pool=127.0.0.1:50052
//             [--target arena_pool=127.0.0.1:50053 ...: a replica of arena_pool]
//             [--lb_policy round_robin|pick_first]
//             [--duration 5s] [--rounds 3] [--concurrency 16] [--rate 2000]
//             [--json FILE] [--csv FILE] [--html FILE]
//   reco_load --call inbox.v1.Inbox/ListThreads [--proto inbox.proto | --protoset FILE]
//             [--data JSON | --data_file FILE] [--metadata k=v] [--total N] --target ...
//             [--require 'arena_pool/heap server_cpu_us_per_rpc <= 0.7' ...]
//   reco_load merge A.json B.json ... [--json FILE] [--csv FILE] [--html FILE] [--require ...]
//       merges the JSON reports of reco_load processes that ran at the same time
//       (client/report/report_merge.h) and prints the table.
//
// Exit status: client/exit_codes.h (0 success, 2 to 7 each named there). A run with
// disturbed rounds ends with one line saying so.
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/flag_parse.h"
#include "cli/mutex_checks.h"
#include "cli/poll_strategy.h"
#include "client/call_flags.h"
#include "client/exit_codes.h"
#include "client/load_options.h"
#include "client/load_run.h"
#include "client/noise_guard.h"
#include "client/poller_choice.h"
#include "client/report/report_merge.h"
#include "client/report/report_reader.h"
#include "client/report/report_renderers.h"
#include "client/report/requirement.h"
#include "core/request.h"
#include "rpc/pem_file.h"

ABSL_FLAG(std::vector<std::string>, target, {},
          "NAME=HOST:PORT of a server to drive; repeatable (or comma-separated). The first is the baseline. A name "
          "given again adds a replica to that target; NAME=dns:///HOST:PORT is every address HOST resolves to.");
ABSL_FLAG(std::string, duration, "5s",
          "Measured time per target and round, 10ms to 24h: seconds (5) or with a unit (500ms, 1m).");
ABSL_FLAG(std::string, warmup, "1s", "Unrecorded load before each measured window, 0 to 24h.");
ABSL_FLAG(std::string, align_start, "0",
          "Distributed load: after the probes, wait until the wall clock is at a multiple of this (e.g. 30s) "
          "before the first warm-up, so that load processes started together measure together. 0: at once.");
ABSL_FLAG(int32_t, rounds, 3, "Rounds; each drives every target once, in order (A B A B ...).");
ABSL_FLAG(std::string, run_timeout, "0",
          "A cap on the whole run: no round starts that would end past it (judged by the round before); the "
          "report holds the rounds done and says so. 0: none; at most 7 days.");
ABSL_FLAG(int32_t, concurrency, 16, "Requests in flight per target (open loop: the most in flight).");
ABSL_FLAG(int32_t, connections, 2,
          "Channels per target; each holds one HTTP/2 connection per backend (replicas: connections per backend).");
ABSL_FLAG(std::string, lb_policy, "round_robin",
          "gRPC load balancing for a target with replicas or a dns:/// address: round_robin or pick_first.");
ABSL_FLAG(int32_t, lookahead_bytes, 0,
          "gRPC's per-stream read-ahead window (GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES); 0: gRPC's default.");
ABSL_FLAG(int32_t, max_receive_message_bytes, 64 << 20,
          "The largest reply a call may receive, 4096 to 2147483647; past it the call fails RESOURCE_EXHAUSTED "
          "(a server cannot make reco_load buffer more).");
ABSL_FLAG(int32_t, threads, 0,
          "Client threads, each driving its own completion queue; 0: one per connection, at most the CPUs.");
ABSL_FLAG(std::string, grpc_poll_strategy, "auto",
          "gRPC's poller (GRPC_POLL_STRATEGY, set before gRPC starts): poll (each thread polls its own "
          "connections; cheaper per reply), epoll1 (gRPC's Linux default), default (leave the environment "
          "alone), or auto: poll, unless a target spreads its calls over backends with round_robin (epoll1).");
ABSL_FLAG(std::string, rate, "",
          "Requests per second, 0.001 to 10000000: an open loop at a constant rate. Absent: a closed loop.");
ABSL_FLAG(int64_t, items, 200, "Items per response, 0 to 10000 (0: the service default, 200).");
ABSL_FLAG(std::string, profile, "realistic", "Text profile: 'realistic' or 'compact' (every string <= 15 bytes).");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the requests' content.");
ABSL_FLAG(int32_t, variants, 4, "Distinct requests (user ids, seeds) cycled through, 1 to 64.");
ABSL_FLAG(int32_t, verify_every, 64, "Compare one response in this many byte for byte with the builder's.");
ABSL_FLAG(double, max_error_rate, 0, "Fail (exit 4) when errors exceed this fraction of requests.");
ABSL_FLAG(std::string, probe_deadline, "3s",
          "How long each target may take to answer the probe before any load (at most 1h).");
ABSL_FLAG(std::string, json, "",
          "Write the full report as JSON to this file (not a directory); - writes it to stdout alone (the table "
          "then goes to stderr).");
ABSL_FLAG(std::string, compression, "identity",
          "Compress every request: gzip or deflate (identity: none). reco_server refuses compressed requests "
          "unless started with --accept_compressed_requests.");
ABSL_FLAG(std::string, name, "",
          "A name for the run, kept in the reports (the table's first line, the JSON, the HTML title).");
ABSL_FLAG(std::string, tags, "",
          "Labels kept in the reports, as a JSON object of strings: '{\"env\": \"ci\", \"commit\": \"abc\"}'.");
ABSL_FLAG(std::string, csv, "",
          "Write the figures as CSV (one row per target and round) to this file; - to stdout alone, as --json.");
ABSL_FLAG(std::string, prometheus, "",
          "Write the summary in Prometheus' text format (per target every figure, per other target the paired "
          "ratios) to this file: for a pushgateway or node_exporter's textfile collector.");
ABSL_FLAG(std::string, influx, "",
          "Write the summary as InfluxDB line protocol (a point per target, its figures as fields) to this file.");
ABSL_FLAG(std::string, html, "", "Write a self-contained HTML report (inline SVG charts) to this file.");
ABSL_FLAG(std::string, write_request, "",
          "Write the first request of the run, gRPC-framed (for h2load -d), to this file and exit without load.");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM file of the roots to trust (at least one certificate); when given, every target is dialled with TLS "
          "(grpc::SslCredentials).");
ABSL_FLAG(std::string, tls_server_name, "",
          "With --tls_ca: the name checked against the server certificate instead of the target's host.");
ABSL_FLAG(std::string, tls_cert, "",
          "With --tls_ca: PEM certificate chain of this client (mutual TLS); needs --tls_key.");
ABSL_FLAG(std::string, tls_key, "", "With --tls_cert: PEM private key of the client certificate.");
ABSL_FLAG(bool, tls_skip_verify, false,
          "TLS without checking the server's certificate or its name (test certificates only: anyone can pose "
          "as the server); instead of --tls_ca. The report says so.");
ABSL_FLAG(std::string, call, "",
          "Drive this method of your own service (unary or streaming) instead of reco's Recommend: "
          "package.Service/Method. Its types come from --proto, --protoset, or the server's reflection; the "
          "requests from --data or --data_file.");
ABSL_FLAG(std::vector<std::string>, proto, {}, "With --call: .proto file(s) defining the method (repeatable).");
ABSL_FLAG(std::vector<std::string>, import_path, {}, "With --proto: directories imports are searched in (repeatable).");
ABSL_FLAG(std::string, protoset, "",
          "With --call: a FileDescriptorSet (protoc --include_imports --descriptor_set_out=FILE) defining the method.");
ABSL_FLAG(std::string, data, "",
          "With --call: the request as JSON (default: an empty request); for a client-streaming or bidirectional "
          "method a JSON array is each call's messages.");
ABSL_FLAG(std::string, data_file, "",
          "With --call: a file of requests: one JSON object, or one per line (cycled through), or with "
          "--data_format binary one serialized request.");
ABSL_FLAG(std::string, data_format, "json", "--data_file's format: json or binary.");
ABSL_FLAG(std::vector<std::string>, metadata, {}, "KEY=VALUE sent as metadata with every call (repeatable).");
ABSL_FLAG(int64_t, total, 0,
          "Calls per target and round in the measured window, instead of --duration (with --rate: a window of "
          "total/rate seconds).");
ABSL_FLAG(std::string, timeout, "10s", "Deadline of each call (at most 1h).");
ABSL_FLAG(bool, fail_on_disturbed, false,
          "Exit 6 (after writing every report) when other processes disturbed any measured round: for CI that "
          "must not publish figures from a busy machine. Without it such a run exits 0 with a summary line.");
ABSL_FLAG(std::vector<std::string>, require, {},
          "'TARGET/BASELINE FIGURE OP NUMBER', e.g. 'arena_pool/heap server_cpu_us_per_rpc <= 0.7' (repeatable): "
          "exit 7 (after writing every report) unless every round's paired ratio meets it; FIGURE is a key of the "
          "JSON's figures, OP one of <= < >= >. Also with `merge`.");
ABSL_FLAG(bool, quiet, false, "No progress line on stderr (it is shown only on a terminal anyway).");

namespace {

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "reco_load: %s\n", message.c_str());
  return code;
}

// Flags -> LoadOptions, or the first bad flag.
// --tls_ca, --tls_server_name, --tls_cert and --tls_key into `o`. The PEM files are
// judged as reco_server judges its own (rpc/pem_file.h): gRPC takes any bytes, and a
// handshake that cannot succeed then blamed the target.
absl::Status ReadTlsFlags(reco::LoadOptions* o) {
  o->tls_server_name = absl::GetFlag(FLAGS_tls_server_name);
  o->tls_skip_verify = absl::GetFlag(FLAGS_tls_skip_verify);
  const std::string tls_ca = absl::GetFlag(FLAGS_tls_ca);
  if (!tls_ca.empty() && o->tls_skip_verify) {
    return absl::InvalidArgumentError("--tls_ca and --tls_skip_verify: give one (the CA checks what the other skips)");
  }
  if (!tls_ca.empty()) {
    absl::StatusOr<std::string> pem = reco::ReadPemFile("--tls_ca", tls_ca);
    if (!pem.ok()) return pem.status();
    if (absl::Status s = reco::CheckPemCertificate({"--tls_ca", tls_ca, *pem}); !s.ok()) return s;
    o->tls_ca_pem = *std::move(pem);
  } else if (!o->tls_server_name.empty() && !o->tls_skip_verify) {
    return absl::InvalidArgumentError("--tls_server_name needs --tls_ca (it only applies to TLS)");
  }
  const std::string tls_cert = absl::GetFlag(FLAGS_tls_cert), tls_key = absl::GetFlag(FLAGS_tls_key);
  for (auto [flag, path, out] :
       {std::tuple{"--tls_cert", tls_cert, &o->tls_cert_pem}, std::tuple{"--tls_key", tls_key, &o->tls_key_pem}}) {
    if (path.empty()) continue;
    absl::StatusOr<std::string> pem = reco::ReadPemFile(flag, path);
    if (!pem.ok()) return pem.status();
    *out = *std::move(pem);
  }
  if (o->tls_cert_pem.empty() || o->tls_key_pem.empty()) return absl::OkStatus();  // half a pair: Validate's
  return reco::CheckTlsKeyPair({"--tls_cert", tls_cert, o->tls_cert_pem}, {"--tls_key", tls_key, o->tls_key_pem});
}

absl::StatusOr<reco::LoadOptions> OptionsFromFlags(const std::vector<std::string>& target_values,
                                                   const std::vector<std::string>& metadata_values) {
  reco::LoadOptions o;
  absl::StatusOr<std::vector<reco::TargetSpec>> targets = reco::ParseTargetFlags(target_values);
  if (!targets.ok()) return targets.status();
  o.targets = *std::move(targets);
  o.lb_policy = absl::GetFlag(FLAGS_lb_policy);
  for (auto [flag, value, out] :
       {std::tuple{"--duration", absl::GetFlag(FLAGS_duration), &o.duration},
        std::tuple{"--timeout", absl::GetFlag(FLAGS_timeout), &o.rpc_deadline},
        std::tuple{"--warmup", absl::GetFlag(FLAGS_warmup), &o.warmup},
        std::tuple{"--probe_deadline", absl::GetFlag(FLAGS_probe_deadline), &o.probe_deadline},
        std::tuple{"--align_start", absl::GetFlag(FLAGS_align_start), &o.align_start},
        std::tuple{"--run_timeout", absl::GetFlag(FLAGS_run_timeout), &o.run_timeout}}) {
    absl::StatusOr<absl::Duration> d = reco::ParseDurationFlag(flag, value);
    if (!d.ok()) return d.status();
    *out = *d;
  }
  absl::StatusOr<double> rate = reco::ParseRateFlag(absl::GetFlag(FLAGS_rate));
  if (!rate.ok()) return rate.status();
  o.rate = *rate;
  o.rounds = absl::GetFlag(FLAGS_rounds);
  o.concurrency = absl::GetFlag(FLAGS_concurrency);
  o.connections = absl::GetFlag(FLAGS_connections);
  o.threads = absl::GetFlag(FLAGS_threads);
  o.lookahead_bytes = absl::GetFlag(FLAGS_lookahead_bytes);
  o.max_receive_message_bytes = absl::GetFlag(FLAGS_max_receive_message_bytes);
  const int64_t items = absl::GetFlag(FLAGS_items);
  if (items < 0 || items > reco::kMaxItemCount) {
    return absl::InvalidArgumentError(absl::StrCat("--items must be from 0 to ", reco::kMaxItemCount, ", got ", items));
  }
  o.items = static_cast<uint32_t>(items);
  if (!reco::ParseTextProfile(absl::GetFlag(FLAGS_profile), &o.profile)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--profile must be 'realistic' or 'compact', got '", absl::GetFlag(FLAGS_profile), "'"));
  }
  o.seed = absl::GetFlag(FLAGS_seed);
  o.verify_every = absl::GetFlag(FLAGS_verify_every);
  o.variants = absl::GetFlag(FLAGS_variants);
  o.max_error_rate = absl::GetFlag(FLAGS_max_error_rate);
  absl::StatusOr<grpc_compression_algorithm> compression = reco::ParseCompressionFlag(absl::GetFlag(FLAGS_compression));
  if (!compression.ok()) return compression.status();
  o.compression = *compression;
  o.name = absl::GetFlag(FLAGS_name);
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> tags =
      reco::ParseTagsFlag(absl::GetFlag(FLAGS_tags));
  if (!tags.ok()) return tags.status();
  o.tags = *std::move(tags);
  if (absl::Status tls = ReadTlsFlags(&o); !tls.ok()) return tls;
  for (const std::string& value : metadata_values) {
    absl::StatusOr<std::pair<std::string, std::string>> pair = reco::ParseMetadataFlag(value);
    if (!pair.ok()) return pair.status();
    o.metadata.push_back(*std::move(pair));
  }
  o.total = absl::GetFlag(FLAGS_total);
  absl::Status valid = reco::ValidateLoadOptions(o);
  if (!valid.ok()) return valid;
  return o;
}

// --call and its companions, as given.
// (absl keeps no public record of which flags were given: argv is read for that.)
reco::CallFlags CallFlagsFromFlags(int argc, char** argv, reco::RequestData::Format format) {
  auto given = [&](const char* name) { return !reco::CollectRepeatedFlag(argc, argv, name, false).empty(); };
  reco::CallFlags f;
  f.call = absl::GetFlag(FLAGS_call);
  f.proto_files = reco::CollectRepeatedFlag(argc, argv, "proto", /*comma_lists=*/true);
  f.import_paths = reco::CollectRepeatedFlag(argc, argv, "import_path", /*comma_lists=*/true);
  f.protoset = absl::GetFlag(FLAGS_protoset);
  if (given("data")) f.data.json = absl::GetFlag(FLAGS_data);
  if (given("data_file")) f.data.file = absl::GetFlag(FLAGS_data_file);
  f.data.format = format;
  for (const char* name : {"items", "profile", "seed", "variants", "verify_every"}) {
    if (given(name)) f.recommend_flags_given.push_back(absl::StrCat("--", name));
  }
  return f;
}

// --json, --csv and --html name files written after the whole load, --write_request
// one written instead of the load: a path that is a directory, or whose directory is
// missing or not writable, is a bad flag found now, not after minutes of load. Run by
// `merge` too, before it reads its inputs.
absl::Status CheckReportPaths() {
  if (absl::GetFlag(FLAGS_json) == "-" && absl::GetFlag(FLAGS_csv) == "-") {
    return absl::InvalidArgumentError("--json - and --csv -: one report on stdout at most");
  }
  for (auto [flag, path] :
       {std::pair{"--html", absl::GetFlag(FLAGS_html)}, std::pair{"--prometheus", absl::GetFlag(FLAGS_prometheus)},
        std::pair{"--influx", absl::GetFlag(FLAGS_influx)},
        std::pair{"--write_request", absl::GetFlag(FLAGS_write_request)}}) {
    if (path == "-") return absl::InvalidArgumentError(absl::StrCat(flag, " -: only --json and --csv go to stdout"));
  }
  for (auto [flag, path] :
       {std::pair{"--json", absl::GetFlag(FLAGS_json)}, std::pair{"--csv", absl::GetFlag(FLAGS_csv)},
        std::pair{"--html", absl::GetFlag(FLAGS_html)}, std::pair{"--prometheus", absl::GetFlag(FLAGS_prometheus)},
        std::pair{"--influx", absl::GetFlag(FLAGS_influx)},
        std::pair{"--write_request", absl::GetFlag(FLAGS_write_request)}}) {
    if (path.empty() || path == "-") continue;
    struct stat info;
    if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": a directory, not a file"));
    }
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    int error = 0;
    if (stat(dir.c_str(), &info) != 0) {
      error = errno;
    } else if (!S_ISDIR(info.st_mode)) {
      error = ENOTDIR;
    } else if (access(dir.c_str(), W_OK | X_OK) != 0) {
      error = errno;
    }
    if (error != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " ", path, ": cannot write there (", dir, ": ", std::strerror(error), ")"));
    }
  }
  return absl::OkStatus();
}

// Whether --json - or --csv - asked for stdout: then it carries that report alone, and
// the table and the --require lines go to stderr.
bool ReportOnStdout() { return absl::GetFlag(FLAGS_json) == "-" || absl::GetFlag(FLAGS_csv) == "-"; }

// The table on stdout (stderr when a report goes there), then the files asked for by
// --json, --csv and --html.
int PrintAndWrite(const reco::RunReport& report) {
  std::FILE* table = ReportOnStdout() ? stderr : stdout;
  std::fputs(reco::RenderTable(report).c_str(), table);
  std::fflush(table);
  const int64_t now_ns = absl::ToUnixNanos(absl::Now());
  using Render = std::function<std::string(const reco::RunReport&)>;
  for (auto [path, render] :
       {std::pair<std::string, Render>{absl::GetFlag(FLAGS_json), &reco::RenderJson},
        std::pair<std::string, Render>{absl::GetFlag(FLAGS_csv), &reco::RenderCsv},
        std::pair<std::string, Render>{absl::GetFlag(FLAGS_html), &reco::RenderHtml},
        std::pair<std::string, Render>{absl::GetFlag(FLAGS_prometheus), &reco::RenderPrometheus},
        std::pair<std::string, Render>{absl::GetFlag(FLAGS_influx),
                                       [now_ns](const reco::RunReport& r) { return reco::RenderInflux(r, now_ns); }}}) {
    if (path.empty()) continue;
    if (path == "-") {
      std::fputs(render(report).c_str(), stdout);
      std::fflush(stdout);
      continue;
    }
    absl::Status written = reco::WriteFile(path, render(report));
    if (!written.ok()) return Fail(reco::kReportNotWrittenExit, std::string(written.message()));
  }
  return 0;
}

// One line per --require on stdout (stderr when a report goes there), after the
// reports; false when one failed.
bool PrintRequirements(const reco::RunReport& report) {
  bool all_passed = true;
  std::FILE* out = ReportOnStdout() ? stderr : stdout;
  for (const reco::RequirementResult& q : report.requirements) {
    std::fprintf(out, "%s\n", q.line().c_str());
    all_passed = all_passed && q.passed();
  }
  std::fflush(out);
  return all_passed;
}

// `reco_load merge FILE...`: every input problem is a bad argument (exit 2), named by
// its file. The merged report's errors do not fail it (exit 4): each input's run has
// already judged its own against --max_error_rate.
int Merge(const std::vector<std::string>& files, const std::string& command_line,
          const std::vector<std::string>& require_values) {
  if (files.empty())
    return Fail(reco::kLoadBadFlagsExit, "merge: give the JSON reports to merge (reco_load merge A.json B.json ...)");
  if (absl::Status paths = CheckReportPaths(); !paths.ok()) {
    return Fail(reco::kLoadBadFlagsExit, absl::StrCat("merge: ", paths.message(), " (see --help)"));
  }
  std::vector<reco::NamedReport> inputs;
  for (const std::string& f : files) {
    absl::StatusOr<reco::RunReport> r = reco::ReadReportFile(f);
    if (!r.ok()) return Fail(reco::kLoadBadFlagsExit, absl::StrCat("merge: ", r.status().message()));
    inputs.push_back({f, *std::move(r)});
  }
  absl::StatusOr<reco::RunReport> merged = reco::MergeReports(inputs, command_line);
  if (!merged.ok()) return Fail(reco::kLoadBadFlagsExit, absl::StrCat("merge: ", merged.status().message()));
  // Judged on the merged report: its targets and figures are known only now.
  absl::StatusOr<std::vector<reco::Requirement>> requirements =
      reco::ParseRequirements(require_values, merged->options);
  if (!requirements.ok())
    return Fail(reco::kLoadBadFlagsExit, absl::StrCat("merge: ", requirements.status().message(), " (see --help)"));
  merged->requirements = reco::EvaluateRequirements(*requirements, *merged);
  const int written = PrintAndWrite(*merged);
  const bool met = PrintRequirements(*merged);
  if (written != 0) return written;
  return met ? 0 : Fail(reco::kRequirementFailedExit, "a --require was not met (the reports are written)");
}

// What a load run needs once its flags are checked and its call resolved.
struct CheckedRun {
  reco::LoadOptions options;
  std::vector<reco::Requirement> requirements;
};

// The load run's flags checked, gRPC's poller chosen and the call resolved (--call may
// ask the server's reflection): 0, or the exit code after saying why (2: a bad flag;
// 3: --call's server unreachable).
int CheckRun(int argc, char** argv, const std::vector<std::string>& target_values,
             const std::vector<std::string>& metadata_values, const std::vector<std::string>& require_values,
             CheckedRun* run) {
  absl::StatusOr<reco::LoadOptions> options = OptionsFromFlags(target_values, metadata_values);
  if (!options.ok()) return Fail(reco::kLoadBadFlagsExit, absl::StrCat(options.status().message(), " (see --help)"));
  // The poller is chosen before anything starts gRPC (--call may ask the server's
  // reflection below).
  absl::StatusOr<std::string> poller = reco::ChoosePoller(absl::GetFlag(FLAGS_grpc_poll_strategy), *options);
  if (!poller.ok()) return Fail(reco::kLoadBadFlagsExit, absl::StrCat(poller.status().message(), " (see --help)"));
  if (absl::Status used = reco::UseGrpcPollStrategy(*poller); !used.ok()) {
    return Fail(reco::kLoadBadFlagsExit, absl::StrCat(used.message(), " (see --help)"));
  }
  if (absl::Status paths = CheckReportPaths(); !paths.ok()) {
    return Fail(reco::kLoadBadFlagsExit, absl::StrCat(paths.message(), " (see --help)"));
  }
  absl::StatusOr<std::vector<reco::Requirement>> requirements = reco::ParseRequirements(require_values, *options);
  if (!requirements.ok())
    return Fail(reco::kLoadBadFlagsExit, absl::StrCat(requirements.status().message(), " (see --help)"));
  absl::StatusOr<reco::RequestData::Format> format = reco::ParseDataFormat(absl::GetFlag(FLAGS_data_format));
  if (!format.ok()) return Fail(reco::kLoadBadFlagsExit, absl::StrCat(format.status().message(), " (see --help)"));
  absl::StatusOr<reco::CallSpec> call = reco::ResolveCall(CallFlagsFromFlags(argc, argv, *format), *options);
  if (!call.ok()) {
    const bool unreachable = call.status().code() == absl::StatusCode::kUnavailable;
    return Fail(unreachable ? reco::kTargetFailedExit : reco::kLoadBadFlagsExit,
                absl::StrCat(call.status().message(), unreachable ? "" : " (see --help)"));
  }
  options->call = *std::move(call);
  run->options = *std::move(options);
  run->requirements = *std::move(requirements);
  return 0;
}

// Runs the load, prints and writes its reports, and gives the exit status (see the top
// of this file for the order of 4, 5, 6 and 7).
int RunAndReport(const CheckedRun& run, const std::string& command_line) {
  const bool show_progress = !absl::GetFlag(FLAGS_quiet) && isatty(STDERR_FILENO);
  reco::ProgressSink progress;
  if (show_progress) {
    progress = [](const std::string& line) { std::fprintf(stderr, "\r%-78s", line.c_str()); };
  }
  absl::StatusOr<reco::RunReport> report = reco::RunLoad(run.options, command_line, progress);
  if (show_progress) std::fprintf(stderr, "\r%-78s\r", "");
  if (!report.ok()) return Fail(reco::kTargetFailedExit, std::string(report.status().message()));

  report->requirements = reco::EvaluateRequirements(run.requirements, *report);
  const int written = PrintAndWrite(*report);
  const bool met = PrintRequirements(*report);
  if (written != 0) return written;
  const reco::NoiseSummary noise = reco::SummarizeNoise(*report);
  if (noise.disturbed > 0) std::fprintf(stderr, "reco_load: %s\n", reco::NoiseSummaryLine(noise).c_str());
  if (report->error_rate() > run.options.max_error_rate) {
    return Fail(reco::kErrorRateExit,
                absl::StrFormat("error rate %.4g is above --max_error_rate %g (see the warnings above)",
                                report->error_rate(), run.options.max_error_rate));
  }
  if (noise.disturbed > 0 && absl::GetFlag(FLAGS_fail_on_disturbed)) {
    return Fail(reco::kDisturbedExit, "--fail_on_disturbed: a measured round was disturbed (the reports are written)");
  }
  if (!met) return Fail(reco::kRequirementFailedExit, "a --require was not met (the reports are written)");
  return 0;
}

// --help's order: what a first run needs first (cli/flag_parse.h).
std::vector<reco::FlagGroup> HelpGroups() {
  return {
      {"What to drive",
       {"target", "call", "proto", "import_path", "protoset", "data", "data_file", "data_format", "metadata"}},
      {"How much load",
       {"duration", "total", "warmup", "rounds", "concurrency", "connections", "threads", "rate", "timeout",
        "run_timeout", "compression"}},
      {"Reports and verdicts",
       {"json", "csv", "html", "prometheus", "influx", "name", "tags", "quiet", "require", "max_error_rate",
        "fail_on_disturbed"}},
      {"TLS", {"tls_ca", "tls_server_name", "tls_cert", "tls_key", "tls_skip_verify"}},
      {"Recommend's requests (without --call)", {"items", "profile", "seed", "variants", "verify_every"}},
      {"Fine tuning",
       {"align_start", "lb_policy", "lookahead_bytes", "max_receive_message_bytes", "probe_deadline",
        "grpc_poll_strategy", "write_request"}},
  };
}

constexpr char kUsage[] =
    "Drives gRPC servers and compares them (client latency and QPS, server allocations per RPC).\n"
    "Usage: reco_load --target NAME=HOST:PORT [--target ...] [--duration 5s | --total N] [--rounds 3]\n"
    "                 [--concurrency 16] [--rate REQ_PER_S] [--json FILE] [--csv FILE] [--html FILE]\n"
    "                 [--tls_ca CA.pem [--tls_server_name NAME] [--tls_cert C.pem --tls_key K.pem]]\n"
    "       Your own service: --call package.Service/Method [--proto FILE [--import_path DIR] | --protoset FILE]\n"
    "                 [--data JSON | --data_file FILE [--data_format json|binary]] [--metadata KEY=VALUE ...]\n"
    "                 types from the files, or from the server's reflection when neither is given\n"
    "                 (docs/your-service.md). Without --call: reco.v1.Recommender, every reply checked.\n"
    "       One target may be bare, as ghz takes it: reco_load [flags] HOST:PORT (named after itself).\n"
    "       NAME given again adds a replica to that target (--lb_policy round_robin|pick_first);\n"
    "       NAME=dns:///HOST:PORT is every address HOST resolves to (docs/load-client.md, \"Replicas\").\n"
    "       --require 'TARGET/BASELINE FIGURE OP NUMBER' (repeatable): exit 7 unless every round's paired ratio\n"
    "                 meets it, e.g. 'arena_pool/heap server_cpu_us_per_rpc <= 0.7' (docs/load-client.md, "
    "\"Requirements\").\n"
    "       reco_load merge A.json B.json ... [--json FILE] [--csv FILE] [--html FILE] [--require ...]\n"
    "                 merges the JSON reports of reco_load processes run AT THE SAME TIME against the same\n"
    "                 servers: latency histograms add bucket by bucket, counts add, QPS is over the longest\n"
    "                 window; the server side is not merged (docs/load-client.md, \"Distributed load\").";

}  // namespace

int main(int argc, char** argv) {
  // glibc moves its mmap and trim thresholds up as a process frees large blocks, so
  // the client's cost per ~100 KB reply depended on what it had done before the load:
  // building Recommend's expected replies raised them, a --call run did not and paid
  // page faults on every reply (scripts/generic_call_cost.sh compares the two paths).
  // Fixed thresholds (the dynamic ones' ceiling for mmap) make every run start alike.
  // Other mallocs ignore mallopt.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  const std::vector<std::string> target_values = reco::CollectTargetFlags(argc, argv);
  const std::vector<std::string> metadata_values = reco::CollectRepeatedFlag(argc, argv, "metadata", false);
  const std::vector<std::string> require_values = reco::CollectRepeatedFlag(argc, argv, "require", false);
  const std::string command_line = absl::StrJoin(argv, argv + argc, " ");
  std::vector<char*> rest = reco::ParseFlagsOrExit2(argc, argv, "reco_load", kUsage, HelpGroups());
  reco::ApplyMutexDeadlockDetectionFlag();  // before gRPC starts a thread
  if (rest.size() > 1 && std::string(rest[1]) == "merge") {
    return Merge(std::vector<std::string>(rest.begin() + 2, rest.end()), command_line, require_values);
  }
  // Arguments that are not flags are targets, [NAME=]HOST:PORT (ghz's bare HOST:PORT).
  std::vector<std::string> targets = target_values;
  for (size_t i = 1; i < rest.size(); ++i) {
    if (!reco::ParseTargetSpec(rest[i]).ok()) {
      return Fail(reco::kLoadBadFlagsExit,
                  absl::StrCat("unexpected argument '", rest[i], "': not a target, [NAME=]HOST:PORT (see --help)"));
    }
    targets.emplace_back(rest[i]);
  }
  CheckedRun run;
  if (const int code = CheckRun(argc, argv, targets, metadata_values, require_values, &run); code != 0) {
    return code;
  }
  if (!absl::GetFlag(FLAGS_write_request).empty()) {
    absl::Status written = reco::WriteFile(absl::GetFlag(FLAGS_write_request), reco::GrpcFramedRequest(run.options));
    return written.ok() ? 0 : Fail(reco::kReportNotWrittenExit, std::string(written.message()));
  }
  return RunAndReport(run, command_line);
}
