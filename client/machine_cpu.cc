// See machine_cpu.h.
#include "client/machine_cpu.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace reco {

void MachineWindow::Merge(const MachineWindow& later) {
  if (later.windows == 0) return;
  if (windows == 0) {
    *this = later;
    return;
  }
  auto add = [](std::optional<double> a, std::optional<double> b) {
    return a && b ? std::optional<double>(*a + *b) : std::nullopt;
  };
  windows += later.windows;
  seconds += later.seconds;
  cpus = std::max(cpus, later.cpus);
  busy_cpu_seconds = add(busy_cpu_seconds, later.busy_cpu_seconds);
  other_cpu_seconds = add(other_cpu_seconds, later.other_cpu_seconds);
}

std::optional<double> MachineWindow::OtherShare() const {
  if (!other_cpu_seconds || seconds <= 0 || cpus <= 0) return std::nullopt;
  return *other_cpu_seconds / (seconds * cpus);
}

std::optional<double> ParseBusyCpuSeconds(absl::string_view proc_stat, long ticks_per_second) {
  if (ticks_per_second <= 0) return std::nullopt;
  for (absl::string_view line : absl::StrSplit(proc_stat, '\n')) {
    if (!absl::ConsumePrefix(&line, "cpu ")) continue;  // "cpu0 ..." lines are single CPUs
    std::vector<uint64_t> ticks;
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      uint64_t v = 0;
      if (!absl::SimpleAtoi(field, &v)) return std::nullopt;
      ticks.push_back(v);
    }
    constexpr size_t kIdle = 3, kIowait = 4, kGuest = 8;  // field positions in the line
    if (ticks.size() <= kIdle) return std::nullopt;
    uint64_t busy = 0;
    for (size_t i = 0; i < std::min(ticks.size(), kGuest); ++i) {
      if (i != kIdle && i != kIowait) busy += ticks[i];
    }
    return static_cast<double>(busy) / ticks_per_second;
  }
  return std::nullopt;
}

std::optional<double> ReadBusyCpuSeconds() {
  std::ifstream in("/proc/stat");
  if (!in) return std::nullopt;
  std::string first_line;
  if (!std::getline(in, first_line)) return std::nullopt;
  return ParseBusyCpuSeconds(first_line, sysconf(_SC_CLK_TCK));
}

bool IsLoopbackTarget(absl::string_view address) {
  if (absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:")) return true;
  for (const char* scheme : {"dns:///", "dns:", "ipv4:", "ipv6:"}) {
    if (absl::ConsumePrefix(&address, scheme)) break;
  }
  if (absl::StrContains(address, ',')) return false;
  absl::string_view host = address;
  if (absl::ConsumePrefix(&host, "[")) {
    host = host.substr(0, host.find(']'));
  } else if (size_t colon = host.rfind(':'); colon != absl::string_view::npos) {
    host = host.substr(0, colon);
  }
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

MachineWindow MachineWindowOf(std::optional<double> busy_start, std::optional<double> busy_end, double seconds,
                              int cpus, double client_cpu_seconds, std::optional<double> server_cpu_seconds) {
  MachineWindow m;
  m.windows = 1;
  m.seconds = seconds;
  m.cpus = cpus;
  if (busy_start && busy_end && *busy_end >= *busy_start) m.busy_cpu_seconds = *busy_end - *busy_start;
  // /proc/stat counts in ticks (10 ms) and the processes' CPU is read a moment apart
  // from it, so a quiet window can come out slightly negative: that is 0.
  if (m.busy_cpu_seconds && server_cpu_seconds) {
    m.other_cpu_seconds = std::max(0.0, *m.busy_cpu_seconds - client_cpu_seconds - *server_cpu_seconds);
  }
  return m;
}

}  // namespace reco
