#!/usr/bin/env bash
# A load run that gates a build: the example of `reco_load --require` that .ci/run's
# `gate` step runs. Starts heap, arena_pool and fragments reco_servers on 127.0.0.1,
# drives them in interleaved rounds, and fails (reco_load's exit 7) unless EVERY
# round's paired ratio meets each bound:
#   arena_pool/heap server_cpu_us_per_rpc <= 1.0   (the arena pool never costs more CPU than heap)
#   fragments/heap qps >= 2                        (ready-made slices keep their lead)
# The bounds are loose on purpose -- the project's kept runs clear them with room
# (docs/FINDINGS.md), and 2-second rounds on a shared CI machine spread wide (single
# rounds of arena_pool/heap have reached the 0.8s) -- so that a failure means a
# regression, not a noisy machine. A
# team copying this puts its own figures and bounds here (docs/load-client.md,
# "Requirements: a run that gates a build").
#
#   scripts/gate.sh [BUILD_DIR]     (default: build)
#   env: ROUNDS=3 DURATION=2s JSON_DIR=(temporary: the report is kept there as gate.json)
# Exit status: reco_load's (0 every bound met, 7 one not met, 2/3/4 as documented).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-3} duration=${DURATION:-2s}
require_reco_binaries "$build"
require_positive_integers rounds
measurement_work_dir work json_dir

targets=()
for mode in heap arena_pool fragments; do
  start_reco_server "$work/$mode.log" "$build/server/reco_server" --mode "$mode" || exit 1
  targets+=(--target "$mode=127.0.0.1:$SERVER_PORT")
done
echo "machine: $(machine_cpus)"
rc=0
"$build/client/reco_load" "${targets[@]}" --rounds "$rounds" --duration "$duration" --quiet \
  --json "$json_dir/gate.json" \
  --require 'arena_pool/heap server_cpu_us_per_rpc <= 1.0' \
  --require 'fragments/heap qps >= 2' || rc=$?
exit "$rc"
