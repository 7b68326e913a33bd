#!/usr/bin/env bash
# What gRPC's poller costs reco_load (cli/poll_strategy.h): reco_load drives the same
# reco_server (ceiling mode by default: the client is the limit there) twice per round,
# with --grpc_poll_strategy poll (what its default, auto, picks for one server) and
# epoll1 (gRPC's Linux default), the order alternating by round, so machine noise hits
# both alike; each round gives one paired ratio poll / epoll1 of reco_load's client
# CPU per response and of its QPS.
#
#   scripts/client_poller_cost.sh [BUILD_DIR]    (default: build)
#   env: MODE=ceiling ROUNDS=7 DURATION=4 WARMUP=1 ITEMS=200 CONNECTIONS=2 THREADS=0 (0: reco_load's
#        default, one per connection, at most the CPUs) JSON_DIR=DIR (keep the reports and
#        runs.txt, their list: scripts/lib/variant_ratios.py DIR/runs.txt poll epoll1)
# About ROUNDS x 2 x (DURATION + WARMUP) seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
mode=${MODE:-ceiling} rounds=${ROUNDS:-7} seconds=${DURATION:-4} warmup=${WARMUP:-1} items=${ITEMS:-200}
connections=${CONNECTIONS:-2} threads=${THREADS:-0}
require_positive_integers rounds seconds warmup items connections
require_reco_binaries "$build"
measurement_work_dir work json_dir
rm -f "$json_dir/runs.txt"
echo "machine before run: $(machine_load_line)"

start_reco_server "$work/server.log" "$build/server/reco_server" --mode "$mode" || exit 1
common=(--target "$mode=127.0.0.1:$SERVER_PORT" --rounds 1 --duration "$seconds" --warmup "$warmup"
        --items "$items" --variants 1 --connections "$connections" --threads "$threads" --quiet)

run() {  # POLLER ROUND
  local out="$json_dir/$1-$2.json"
  "$build/client/reco_load" "${common[@]}" --grpc_poll_strategy "$1" --json "$out" >/dev/null
  echo "$2 $1 $out" >>"$json_dir/runs.txt"
}

paired_rounds "$rounds" run poll epoll1
/usr/bin/python3 scripts/lib/variant_ratios.py "$json_dir/runs.txt" poll epoll1
