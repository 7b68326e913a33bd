// See run_report.h.
#include "client/run_report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "cli/build_info.h"
#include "core/allocation_counter.h"
#include "google/protobuf/stubs/common.h"
#include "grpcpp/grpcpp.h"

namespace reco {

std::pair<double, double> TargetResult::QpsRange() const {
  if (rounds.empty()) return {0, 0};
  double lo = rounds[0].client.qps(), hi = lo;
  for (const RoundResult& r : rounds) {
    lo = std::min(lo, r.client.qps());
    hi = std::max(hi, r.client.qps());
  }
  return {lo, hi};
}

CpuIdentity ReadCpuIdentity(std::istream& cpuinfo) {
  // Only the first processor's block: every CPU of a VM reports the same.
  std::string model, family, model_number, stepping, line;
  while (std::getline(cpuinfo, line) && !absl::StripAsciiWhitespace(line).empty()) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const absl::string_view key = absl::StripAsciiWhitespace(absl::string_view(line).substr(0, colon));
    const std::string value(absl::StripAsciiWhitespace(absl::string_view(line).substr(colon + 1)));
    if (key == "model name") model = value;
    if (key == "cpu family") family = value;
    if (key == "model") model_number = value;
    if (key == "stepping") stepping = value;
  }
  CpuIdentity id;
  id.model = model;
  if (!family.empty() && !model_number.empty() && !stepping.empty()) {
    id.signature = absl::StrCat("family ", family, " model ", model_number, " stepping ", stepping);
  }
  return id;
}

RunEnvironment CurrentEnvironment(const std::string& command_line) {
  RunEnvironment e;
  e.set_protobuf_version(google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
  e.set_grpc_version(grpc::Version());
  std::ifstream cpuinfo("/proc/cpuinfo");
  CpuIdentity cpu = ReadCpuIdentity(cpuinfo);
  e.set_cpu_model(cpu.model);
  e.set_cpu_signature(cpu.signature);
  e.set_cpus(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  e.set_client_malloc(AllocationCounter::MallocLabel());
  const char* poller = std::getenv("GRPC_POLL_STRATEGY");
  e.set_client_poller(poller != nullptr && *poller != '\0' ? poller : "gRPC's default");
  e.set_started_utc(absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone()));
  e.set_command_line(command_line);
  e.set_tool_version(VersionLine("reco_load"));
  return e;
}

double RunReport::error_rate() const {
  uint64_t errors = 0, completed = 0;
  for (const TargetResult& t : targets) {
    errors += t.client.errors();
    completed += t.client.completed;
  }
  return completed ? static_cast<double>(errors) / completed : 0.0;
}

std::string PercentileLabel(double p) { return absl::StrCat("p", absl::StrFormat("%g", p)); }

bool IsCeilingTarget(const std::string& name, const std::string& server_mode) {
  return name == "ceiling" || server_mode == "ceiling";
}

int RunReport::CeilingIndex() const {
  for (size_t i = 0; i < targets.size(); ++i) {
    const TargetResult& t = targets[i];
    if (IsCeilingTarget(t.spec.name, t.server.available ? t.server.mode : "")) return static_cast<int>(i);
  }
  return -1;
}

std::optional<double> RunReport::QpsShareOfCeiling(size_t i) const {
  const int c = CeilingIndex();
  if (c < 0 || i >= targets.size()) return std::nullopt;
  const double ceiling_qps = targets[c].client.qps();
  if (ceiling_qps <= 0) return std::nullopt;
  return targets[i].client.qps() / ceiling_qps;
}

std::optional<PairedRatio> RunReport::PairedQpsShareOfCeiling(size_t i) const {
  const int c = CeilingIndex();
  if (c < 0 || i >= targets.size()) return std::nullopt;
  auto per_round = [](const TargetResult& t) {
    std::vector<std::optional<double>> qps;
    for (const RoundResult& r : t.rounds) qps.push_back(r.client.qps());
    return qps;
  };
  return PairRounds(per_round(targets[i]), per_round(targets[c]));
}

}  // namespace reco
