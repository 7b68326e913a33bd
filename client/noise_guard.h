// The noise guard: which rounds of a reco_load run were disturbed, and the warnings
// that say so.
//
// A round is DISTURBED when the other processes on the machine (everything but this
// client and the target server: MachineWindow::OtherShare) took more than
// kDisturbedOtherCpuShare of the machine's CPU during its measured window. The
// CLIENT may be the bottleneck when its own CPU over a target's windows reaches
// kClientBusyShare of the driver threads it ran: then the target's figures measure
// the client as much as the server. (Not judged for a server running inside the
// client's own process, as in tests: its CPU is inside the client's.)
//
// Example:
//   reco::Disturbed(report.targets[0].rounds[1].machine)   // true: other CPU 35% > 10%
//   reco::AddNoiseWarnings(report, &report.warnings);
//   // "heap round 2: other processes used 35% of the machine's CPU during the window;
//   //  its figures are disturbed (rerun on a quiet machine)"
//   reco::NoiseSummaryLine(reco::SummarizeNoise(report))
//   // "1 of 4 measured rounds was disturbed (other processes used 35% of the CPU); ..."
//
// Thread-safety: pure functions of their arguments.
#ifndef ARENA_GRPC_CLIENT_NOISE_GUARD_H_
#define ARENA_GRPC_CLIENT_NOISE_GUARD_H_

#include <string>
#include <vector>

#include "client/machine_cpu.h"
#include "client/run_report.h"

namespace reco {

// On the idle 2-core VMs this project measures on, everything besides the client and
// the server (kernel threads, sshd, logging) stays at a few percent of the machine.
// 10% is a fifth of one core there: another job at that level already moves a
// CPU-bound server's QPS by more than the differences between memory modes that the
// reports read.
inline constexpr double kDisturbedOtherCpuShare = 0.10;

// A driver thread that is busy 90% of its window has no slack left to send the next
// request on time: the load it offers is capped by the client, not by the server.
inline constexpr double kClientBusyShare = 0.9;

// True when the window's other-processes share is known and above the threshold.
bool Disturbed(const MachineWindow& machine);

// Appends a warning per disturbed (target, round), and per target whose client CPU
// reached kClientBusyShare of its driver threads.
void AddNoiseWarnings(const RunReport& report, std::vector<std::string>* warnings);

// A run's disturbed windows, counted: what reco_load's last line says, and what
// --fail_on_disturbed fails on. A "measured round" is one target's window in one round.
struct NoiseSummary {
  int rounds = 0;              // measured rounds, every target's
  int judged = 0;              // of them, those whose other-processes share is known
  int disturbed = 0;           // of them, Disturbed()
  double min_other_share = 0;  // the other processes' share over the disturbed ones
  double max_other_share = 0;
};
NoiseSummary SummarizeNoise(const RunReport& report);

// One line for the end of a run, "" when no round was disturbed. Every round
// disturbed: "all 15 measured rounds were disturbed (other processes used 73-96% of
// the CPU); the figures are not comparable with a quiet machine's". Some: "3 of 15
// measured rounds were disturbed (...); their figures are not comparable with a quiet
// machine's (the warnings name them)".
std::string NoiseSummaryLine(const NoiseSummary& summary);

// The verdict's line on noise, always one (the text table's last lines and the HTML's
// verdict box): "noise guard: 2 of 6 measured rounds disturbed (...)", "noise guard:
// 0 of 6 measured rounds disturbed", or, where the share of other processes is not
// known, which rounds could not be judged and why (a target whose server reports no
// CPU, a server on another machine). "" when no round recorded the machine's figures.
std::string NoiseVerdict(const RunReport& report);

}  // namespace reco

#endif  // ARENA_GRPC_CLIENT_NOISE_GUARD_H_
