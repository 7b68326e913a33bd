#!/usr/bin/env bash
# What arena_pool's growing blocks buy at large replies: two arena_pool servers, one
# with growth off (--max_block_bytes 0: a reply larger than the 512 KiB block spills
# into heap blocks that every release frees), one with the defaults (the arena grows
# its block to fit), in interleaved paired rounds at ITEMS items per reply.
#
#   scripts/arena_growth.sh [BUILD_DIR]       (default: build)
#   env: ROUNDS=5 DURATION=4 WARMUP=1 ITEMS=10000
#        JSON_DIR=DIR  keep the report there (arena-growth.json); docs/results/ holds the kept one
# 1 connection x 4 in flight, each server giving that connection the whole reply budget
# (as scripts/scaling.sh). About ROUNDS x 2 x (WARMUP + DURATION) seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-5} seconds=${DURATION:-4} warmup=${WARMUP:-1} items=${ITEMS:-10000}
require_positive_integers rounds seconds warmup items
require_reco_binaries "$build"
measurement_work_dir work json_dir
echo "machine before run: $(machine_load_line)"
start_reco_server "$work/fixed.log" "$build/server/reco_server" --mode arena_pool --max_block_bytes 0 \
  --max_connection_budget_share 1 --max_client_budget_share 1 || exit 1
fixed=$SERVER_PORT
start_reco_server "$work/growth.log" "$build/server/reco_server" --mode arena_pool \
  --max_connection_budget_share 1 --max_client_budget_share 1 || exit 1
growth=$SERVER_PORT
"$build/client/reco_load" --target "fixed=127.0.0.1:$fixed" --target "growth=127.0.0.1:$growth" --items "$items" \
  --connections 1 --concurrency 4 --threads 1 --rounds "$rounds" --duration "$seconds" --warmup "$warmup" \
  --quiet --json "$json_dir/arena-growth.json"
[ -z "${JSON_DIR:-}" ] || echo "report: $json_dir/arena-growth.json"
