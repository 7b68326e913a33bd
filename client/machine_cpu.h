// MachineWindow: what the whole machine's CPUs did during one measured window, so
// that a round disturbed by some other process can be told from a quiet one.
//
// busy = the machine's busy CPU time over all CPUs, from /proc/stat's "cpu" line:
// user + nice + system + irq + softirq + steal (everything but idle and iowait; guest
// time is already inside user and nice). Steal counts as busy: a neighbour VM taking
// this machine's CPUs disturbs the figures as much as a local process does.
// other = busy - this client process's CPU - the target server's CPU: what every
// other process took. It is only known when the server reported its CPU and runs on
// this machine (a loopback address); otherwise it is nullopt (n/a), as is everything
// when /proc/stat cannot be read (not Linux, a restricted container).
//
// Reading /proc/stat takes a few microseconds; load_run.cc reads it at the window's
// edges only, never in the driver threads.
//
// Example:
//   std::optional<double> start = reco::ReadBusyCpuSeconds();
//   ... the measured window ...
//   reco::MachineWindow m = reco::MachineWindowOf(start, reco::ReadBusyCpuSeconds(), 4.0, 2,
//                                                 client_cpu, server_cpu);
//   m.OtherShare();   // 0.35: other processes used 35% of the machine's CPU time
//
// Thread-safety: plain values; the functions are safe from any thread.
#ifndef ARENA_GRPC_CLIENT_MACHINE_CPU_H_
#define ARENA_GRPC_CLIENT_MACHINE_CPU_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace reco {

struct MachineWindow {
  int windows = 0;     // windows merged into this one (0: none recorded)
  double seconds = 0;  // wall time between the two /proc/stat reads, summed over windows
  int cpus = 0;        // CPUs online
  // The machine's busy CPU time (all CPUs); nullopt when /proc/stat was unreadable.
  std::optional<double> busy_cpu_seconds;
  // busy minus this client and the target server (never below 0); nullopt when not
  // computable (see above). A merged window is nullopt if any of its windows is.
  std::optional<double> other_cpu_seconds;

  // Adds a later window (rounds into a run's total).
  void Merge(const MachineWindow& later);
  // other_cpu_seconds over the CPU time the machine had (seconds * cpus): 0.35 = 35%.
  std::optional<double> OtherShare() const;
};

// The busy CPU seconds in the text of /proc/stat (its first line, "cpu  user nice
// system idle iowait irq softirq steal guest guest_nice", in ticks); nullopt when
// there is no "cpu " line with at least the four fields up to idle.
std::optional<double> ParseBusyCpuSeconds(absl::string_view proc_stat, long ticks_per_second);

// The machine's busy CPU seconds now, from /proc/stat; nullopt when unreadable.
std::optional<double> ReadBusyCpuSeconds();

// True when a gRPC target address names this machine: 127.x.x.x, localhost, [::1]
// (with or without an ipv4:/ipv6:/dns: prefix) or a unix socket. A list of several
// addresses is false: the stats come from only one of the servers behind it.
bool IsLoopbackTarget(absl::string_view address);

// The window between two busy readings: `server_cpu_seconds` is the target server's
// CPU over the window, nullopt when unknown or when the server is elsewhere.
MachineWindow MachineWindowOf(std::optional<double> busy_start, std::optional<double> busy_end, double seconds,
                              int cpus, double client_cpu_seconds, std::optional<double> server_cpu_seconds);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_MACHINE_CPU_H_
