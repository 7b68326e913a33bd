#!/usr/bin/env bash
# What aliasing the catalogue's sub-messages buys the service (reco_server --mode
# arena_alias, docs/patterns.md section 10): two servers, arena_pool (each item's
# Price, Image, Rating, Seller and Shipping copied into the arena-built reply) and
# arena_alias (the same store, those five attached from the catalogue without a copy).
# reco_load drives them in interleaved paired rounds; its verdict line gives
# arena_alias/arena_pool server CPU per RPC and QPS with their spreads.
#
#   scripts/arena_alias_cost.sh [BUILD_DIR]       (default: build)
#   env: ROUNDS=7 DURATION=4 WARMUP=1 ITEMS=200 PROFILE=realistic
#        JSON_DIR=DIR  keep the report there (arena-alias.json); docs/results/ holds the kept one
# About ROUNDS x 2 x DURATION seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-7} seconds=${DURATION:-4} warmup=${WARMUP:-1} items=${ITEMS:-200} profile=${PROFILE:-realistic}
require_positive_integers rounds seconds warmup items
require_reco_binaries "$build"
measurement_work_dir work json_dir
echo "machine before run: $(machine_load_line)"

start_reco_server "$work/arena_pool.log" "$build/server/reco_server" --mode arena_pool || exit 1
pool=$SERVER_PORT
start_reco_server "$work/arena_alias.log" "$build/server/reco_server" --mode arena_alias || exit 1
alias=$SERVER_PORT
"$build/client/reco_load" --target "arena_pool=127.0.0.1:$pool" --target "arena_alias=127.0.0.1:$alias" \
  --items "$items" --profile "$profile" --rounds "$rounds" --duration "$seconds" --warmup "$warmup" --quiet \
  --json "$json_dir/arena-alias.json"
[ -z "${JSON_DIR:-}" ] || echo "report: $json_dir/arena-alias.json"
