#!/usr/bin/env bash
# What serving Prometheus metrics costs a server (reco_server --metrics_listen,
# docs/server.md "Prometheus metrics"): two arena_pool servers, one with the metrics
# port and a scraper asking for /metrics every SCRAPE seconds throughout (Prometheus'
# own default is 60 s, so this is the harsher case), one without. reco_load drives
# them in interleaved paired rounds; its verdict line gives metrics/plain server CPU
# per RPC and QPS with their spreads.
#
#   scripts/metrics_cost.sh [BUILD_DIR]       (default: build)
#   env: ROUNDS=7 DURATION=4 WARMUP=1 MODE=arena_pool SCRAPE=1
#        JSON_DIR=DIR  keep the report there (metrics-cost.json); docs/results/ holds the kept one
# About ROUNDS x 2 x DURATION seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-7} seconds=${DURATION:-4} warmup=${WARMUP:-1} mode=${MODE:-arena_pool} scrape=${SCRAPE:-1}
require_positive_integers rounds seconds warmup scrape
require_reco_binaries "$build"
measurement_work_dir work json_dir
command -v curl >/dev/null || { echo "metrics_cost: curl is needed (apt-get install curl)" >&2; exit 2; }
echo "machine before run: $(machine_load_line)"

start_reco_server "$work/plain.log" "$build/server/reco_server" --mode "$mode" || exit 1
plain=$SERVER_PORT
start_reco_server "$work/metrics.log" "$build/server/reco_server" --mode "$mode" --metrics_listen 127.0.0.1:0 || exit 1
metrics=$SERVER_PORT
metrics_port=$(sed -n 's/.* metrics=[^ ]*:\([0-9]*\).*/\1/p' "$work/metrics.log" | head -1)
[ -n "$metrics_port" ] || { echo "metrics_cost: no metrics port in $work/metrics.log" >&2; exit 1; }
# The scraper: one scrape per SCRAPE seconds while the work directory exists (the
# exit trap removes it); a failed scrape ends it, which the check below sees.
( while [ -d "$work" ] && sleep "$scrape"; do
    curl -sf -o /dev/null "http://127.0.0.1:$metrics_port/metrics" || exit 1
  done ) &
scraper=$!
"$build/client/reco_load" --target "plain=127.0.0.1:$plain" --target "metrics=127.0.0.1:$metrics" \
  --rounds "$rounds" --duration "$seconds" --warmup "$warmup" --quiet --json "$json_dir/metrics-cost.json"
kill -0 $scraper 2>/dev/null || { echo "metrics_cost: a scrape failed during the run" >&2; exit 1; }
scrapes=$(curl -sf "http://127.0.0.1:$metrics_port/metrics" | sed -n 's/^exposer_scrapes_total \([0-9]*\).*/\1/p')
echo "scrapes served during the run: $scrapes"
[ -z "${JSON_DIR:-}" ] || echo "report: $json_dir/metrics-cost.json"
