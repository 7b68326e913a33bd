// See load_options.h.
#include "client/load_options.h"

#include <algorithm>
#include <set>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/response_builder.h"

namespace reco {
namespace {

absl::Status Bad(absl::string_view flag, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(flag, " ", what));
}

}  // namespace

absl::StatusOr<TargetSpec> ParseTargetSpec(absl::string_view value) {
  const std::string example = "expected NAME=HOST:PORT, e.g. heap=127.0.0.1:50051";
  size_t eq = value.find('=');
  if (eq == absl::string_view::npos || eq == 0) {
    return Bad("--target", absl::StrCat("'", value, "': ", example));
  }
  TargetSpec spec{std::string(value.substr(0, eq)), std::string(value.substr(eq + 1))};
  size_t colon = spec.address.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Bad("--target", absl::StrCat("'", value, "': ", example));
  }
  int port = 0;
  if (!absl::SimpleAtoi(absl::string_view(spec.address).substr(colon + 1), &port) || port < 1 || port > 65535) {
    return Bad("--target", absl::StrCat("'", value, "': the port must be a number from 1 to 65535"));
  }
  for (char c : spec.name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      return Bad("--target", absl::StrCat("'", value, "': the name may hold letters, digits, '_', '-' and '.' only"));
    }
  }
  return spec;
}

absl::StatusOr<absl::Duration> ParseDurationFlag(absl::string_view flag, absl::string_view value) {
  double seconds;
  if (absl::SimpleAtod(value, &seconds)) return absl::Seconds(seconds);
  absl::Duration d;
  if (absl::ParseDuration(value, &d)) return d;
  return Bad(flag, absl::StrCat("'", value, "' is not a duration: give seconds (5, 2.5) or a unit (500ms, 10s, 1m)"));
}

absl::StatusOr<double> ParseRateFlag(absl::string_view value) {
  if (value.empty()) return 0.0;
  double rate;
  if (!absl::SimpleAtod(value, &rate) || !(rate > 0)) {
    return Bad("--rate", absl::StrCat("must be a positive number of requests per second (leave it out for a closed "
                                      "loop), got '", value, "'"));
  }
  return rate;
}

std::vector<std::string> CollectTargetFlags(int argc, char** argv) {
  std::vector<std::string> values;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (!absl::ConsumePrefix(&arg, "--")) {
      if (!absl::ConsumePrefix(&arg, "-")) continue;
    }
    if (arg == "target" && i + 1 < argc) {
      for (absl::string_view v : absl::StrSplit(argv[++i], ',')) values.emplace_back(v);
    } else if (absl::ConsumePrefix(&arg, "target=")) {
      for (absl::string_view v : absl::StrSplit(arg, ',')) values.emplace_back(v);
    }
  }
  return values;
}

absl::Status ValidateLoadOptions(const LoadOptions& o) {
  if (o.targets.empty()) return Bad("--target", "is required: give at least one NAME=HOST:PORT");
  std::set<std::string> names;
  for (const TargetSpec& t : o.targets) {
    if (!names.insert(t.name).second) return Bad("--target", absl::StrCat("name '", t.name, "' is given twice"));
  }
  if (o.duration <= absl::ZeroDuration()) {
    return Bad("--duration", absl::StrCat("must be positive, got ", absl::FormatDuration(o.duration)));
  }
  if (o.warmup < absl::ZeroDuration()) {
    return Bad("--warmup", absl::StrCat("must be zero or positive, got ", absl::FormatDuration(o.warmup)));
  }
  if (o.rounds < 1 || o.rounds > 1000) return Bad("--rounds", absl::StrCat("must be from 1 to 1000, got ", o.rounds));
  if (o.concurrency < 1 || o.concurrency > 100000) {
    return Bad("--concurrency", absl::StrCat("must be from 1 to 100000, got ", o.concurrency));
  }
  if (o.connections < 1 || o.connections > 1000) {
    return Bad("--connections", absl::StrCat("must be from 1 to 1000, got ", o.connections));
  }
  if (o.lookahead_bytes < 0) {
    return Bad("--lookahead_bytes", absl::StrCat("must be 0 (gRPC's default) or positive, got ", o.lookahead_bytes));
  }
  if (o.threads < 0 || o.threads > 256) {
    return Bad("--threads", absl::StrCat("must be from 1 to 256, or 0 for one per connection, got ", o.threads));
  }
  if (!(o.rate >= 0) || o.rate > 1e7) {
    return Bad("--rate", absl::StrCat("must be positive (requests per second; 0 or absent for a closed loop), got ",
                                      o.rate));
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
  if (o.probe_deadline <= absl::ZeroDuration()) return Bad("--probe_deadline", "must be positive");
  if (o.rpc_deadline <= absl::ZeroDuration()) return Bad("--rpc_deadline", "must be positive");
  return absl::OkStatus();
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
