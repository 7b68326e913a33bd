# shellcheck shell=bash
# Source this file. Which machine a measurement runs on and how busy it is BEFORE the
# measurement starts, each in one line, so that a result says where it was taken and
# whether the machine was busy (scripts/run.sh, bench/matrix.sh, the measurement scripts).
# Safe under `set -euo pipefail`.
#
#   machine_load_line     prints "load 0.12, 3% busy over 1 s": the 1-minute load
#                         average and the share of all CPUs' time that was not idle
#                         (nor iowait) over a 1-second sample of /proc/stat. Takes 1 s.
#                         Without /proc: "load ?, busy ? (no /proc on this machine)".
#   busy_percent LINE1 LINE2
#                         the busy % between two /proc/stat "cpu" lines (the same
#                         sum as reco_load's noise guard, client/machine_cpu.h:
#                         user + nice + system + irq + softirq + steal, over all of
#                         them but guest, which user and nice already hold).
#   other_cpu_percent LINE1 LINE2 OWN_CPU_SECONDS WALL_SECONDS
#                         the share of the machine (all CPUs over WALL_SECONDS) that
#                         was busy between the two /proc/stat lines but not in the
#                         measured process (OWN_CPU_SECONDS, e.g. from bash's `time`):
#                         the noise guard for a run that is not reco_load's, such as
#                         reco_bench in bench/matrix.sh. Never below 0.
#   machine_cpus          prints "MODEL, N CPUs": the CPU's model name and how many
#                         CPUs this process may use, the line a measurement opens with.

busy_percent() {
  local -a a b
  read -r -a a <<<"$1"
  read -r -a b <<<"$2"
  local i total=0 idle=0 v
  # Fields 1..8 after the "cpu" label: user nice system idle iowait irq softirq steal.
  for i in 1 2 3 4 5 6 7 8; do
    v=$(( ${b[$i]:-0} - ${a[$i]:-0} ))
    total=$(( total + v ))
    if [ "$i" -eq 4 ] || [ "$i" -eq 5 ]; then idle=$(( idle + v )); fi
  done
  if [ "$total" -le 0 ]; then echo 0; return; fi
  echo $(( (100 * (total - idle) + total / 2) / total ))
}

busy_ticks() {  # LINE: the busy fields of one /proc/stat "cpu" line, summed
  local -a a
  read -r -a a <<<"$1"
  echo $(( ${a[1]:-0} + ${a[2]:-0} + ${a[3]:-0} + ${a[6]:-0} + ${a[7]:-0} + ${a[8]:-0} ))
}

other_cpu_percent() {
  local busy cpus ticks
  ticks=$(getconf CLK_TCK 2>/dev/null || echo 100)
  cpus=$(nproc 2>/dev/null || echo 1)
  busy=$(( $(busy_ticks "$2") - $(busy_ticks "$1") ))
  awk -v b="$busy" -v t="$ticks" -v own="$3" -v wall="$4" -v c="$cpus" \
    'BEGIN { o = (b / t - own) / (wall * c) * 100; if (o < 0 || wall <= 0) o = 0; printf "%.0f\n", o }'
}

machine_cpus() {
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
}

machine_load_line() {
  if [ ! -r /proc/stat ] || [ ! -r /proc/loadavg ]; then
    echo "load ?, busy ? (no /proc on this machine)"
    return 0
  fi
  local load first second
  load=$(cut -d' ' -f1 /proc/loadavg)
  first=$(head -1 /proc/stat)
  sleep 1
  second=$(head -1 /proc/stat)
  echo "load $load, $(busy_percent "$first" "$second")% busy over 1 s"
}
