#!/usr/bin/env bash
# Zero-copy or one copy? reco_server --mode fragments with every catalogue item
# referenced by a slice of its own (--fragments_copy_below_bytes=0: zero-copy, ~401
# slices per 200-item reply) against the default (every item copied into one slice
# per reply), driven by reco_load in interleaved rounds for each text profile. Prints
# the median of the per-round ratios zero_copy / copied with their min-max
# (scripts/lib/paired_ratios.py) and the exact allocations per RPC of both.
#
#   scripts/fragments_slices.sh [BUILD_DIR]     (default: build)
#   env: ROUNDS=5 DURATION=4s PROFILES="realistic compact" JSON_DIR=(temporary)
# The test suite runs it short (ROUNDS=1 DURATION=500ms PROFILES=compact).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-5} duration=${DURATION:-4s} profiles=${PROFILES:-realistic compact}
require_reco_binaries "$build"
require_positive_integers rounds
measurement_work_dir work json_dir

echo "machine: $(machine_cpus)"
start_reco_server "$work/copied.log" "$build/server/reco_server" --mode fragments || exit 1
copied=$SERVER_PORT
start_reco_server "$work/zero_copy.log" "$build/server/reco_server" --mode fragments \
  --fragments_copy_below_bytes=0 || exit 1
zero_copy=$SERVER_PORT
for profile in $profiles; do
  "$build/client/reco_load" --target "copied=127.0.0.1:$copied" --target "zero_copy=127.0.0.1:$zero_copy" \
    --rounds "$rounds" --duration "$duration" --profile "$profile" --quiet \
    --json "$json_dir/fragments_slices_$profile.json" >/dev/null
  echo
  echo "$profile text, 200 items:"
  /usr/bin/python3 scripts/lib/paired_ratios.py "$json_dir/fragments_slices_$profile.json" copied zero_copy
done
