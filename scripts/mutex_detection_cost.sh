#!/usr/bin/env bash
# What abseil's Mutex deadlock detector costs a gRPC server on Debian's packages
# (cli/mutex_checks.h): per mode, two reco_servers, one as shipped (detector off) and
# one started with --mutex_deadlock_detection (Debian's abseil default: on). reco_load
# (detector off) drives all of them in interleaved paired rounds; the summary gives,
# per mode, off/on server CPU per RPC and QPS with their spreads.
#
#   scripts/mutex_detection_cost.sh [BUILD_DIR]       (default: build)
#   env: MODES="heap arena_pool fragments ceiling" ROUNDS=7 DURATION=3 WARMUP=1 ITEMS=200
#        JSON_DIR=DIR  keep the report there (mutex-detection.json); docs/results/ holds the kept one
# About ROUNDS x 2 x (number of modes) x DURATION seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
modes=${MODES:-heap arena_pool fragments ceiling}
rounds=${ROUNDS:-7} seconds=${DURATION:-3} warmup=${WARMUP:-1} items=${ITEMS:-200}
require_positive_integers rounds seconds warmup items
require_reco_binaries "$build"
measurement_work_dir work json_dir
echo "machine before run: $(machine_load_line)"

targets=()
for mode in $modes; do
  start_reco_server "$work/$mode.log" "$build/server/reco_server" --mode "$mode" || exit 1
  targets+=(--target "$mode=127.0.0.1:$SERVER_PORT")
  start_reco_server "$work/$mode-detector.log" "$build/server/reco_server" --mode "$mode" \
    --mutex_deadlock_detection || exit 1
  targets+=(--target "${mode}_detector=127.0.0.1:$SERVER_PORT")
done
report=$json_dir/mutex-detection.json
"$build/client/reco_load" "${targets[@]}" --items "$items" --rounds "$rounds" --duration "$seconds" \
  --warmup "$warmup" --quiet --json "$report"
for mode in $modes; do
  /usr/bin/python3 scripts/lib/paired_ratios.py "$report" "${mode}_detector" "$mode"
done
[ -z "${JSON_DIR:-}" ] || echo "report: $report"
