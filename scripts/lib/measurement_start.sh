# shellcheck shell=bash
# Source this file from a measurement script that drives reco_server with reco_load
# (scripts/fragments_slices.sh, guard_cost.sh, edge_cost.sh, flood.sh,
# compare_h2load.sh): the checks and the set-up they all begin with, written once. It
# sources reco_servers.sh, machine_load.sh and script_flags.sh beside it, so their
# functions come too: such a script begins with `parse_positionals "$0" "$@"`.
# Safe under `set -euo pipefail`.
#
#   require_reco_binaries BUILD
#       exits 1, naming the missing file, unless BUILD/server/reco_server and
#       BUILD/client/reco_load are built: a measurement without them would fail late.
#   require_positive_integers NAME...
#       exits 2 unless every named shell variable holds a positive integer; the message
#       names the variable in capitals, as the environment variable a user sets
#       ("ROUNDS=0 is not a positive integer").
#   measurement_work_dir VAR [JSON_VAR]
#       makes a temporary directory, sets VAR to it, and sets an EXIT trap that stops
#       every reco_server still running (SIGTERM, as stop_reco_servers) and removes the
#       directory. With JSON_VAR, also sets JSON_VAR to where the script keeps its
#       reco_load reports: $JSON_DIR (created) when the user gives one to keep them,
#       else the temporary directory. Call it directly, not in $(...).
#   paired_rounds ROUNDS FUNCTION A B
#       runs `FUNCTION A R` and `FUNCTION B R` back to back for R = 1..ROUNDS, B first
#       in even rounds (the order alternates, so a drift of the machine hits both
#       alike), and says "round R/ROUNDS done" on stderr after each.
_measurement_lib=$(dirname "${BASH_SOURCE[0]}")
. "$_measurement_lib/reco_servers.sh"
. "$_measurement_lib/machine_load.sh"
. "$_measurement_lib/script_flags.sh"

require_reco_binaries() {
  local bin
  for bin in "$1/server/reco_server" "$1/client/reco_load"; do
    [ -x "$bin" ] || { echo "$bin is missing: run scripts/build.sh first" >&2; exit 1; }
  done
}

require_positive_integers() {
  local name
  for name in "$@"; do
    [[ "${!name}" =~ ^[1-9][0-9]*$ ]] || { echo "${name^^}=${!name} is not a positive integer" >&2; exit 2; }
  done
}

measurement_work_dir() {
  local dir
  dir=$(mktemp -d)
  printf -v "$1" %s "$dir"
  # shellcheck disable=SC2064  # the directory's name, now
  trap "stop_reco_servers || true; rm -rf $(printf %q "$dir")" EXIT
  if [ $# -gt 1 ]; then
    printf -v "$2" %s "${JSON_DIR:-$dir}"
    mkdir -p "${!2}"
  fi
}

paired_rounds() {
  local rounds=$1 fn=$2 first=$3 second=$4 round
  for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then "$fn" "$first" "$round"; "$fn" "$second" "$round"
    else "$fn" "$second" "$round"; "$fn" "$first" "$round"; fi
    echo "round $round/$rounds done" >&2
  done
}
