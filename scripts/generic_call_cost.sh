#!/usr/bin/env bash
# Does the generic path cost the client more per call? reco_load drives the same
# reco_server (ceiling mode by default: the client is the limit there) with the same
# request twice per round: once as reco's Recommend (replies checked by length, a
# sample byte for byte) and once through --call with the method's types from
# proto/reco.proto and the request as JSON (replies checked by status). The order
# alternates by round, so machine noise hits both alike; each round gives one paired
# ratio generic / Recommend of reco_load's client CPU per response and of its QPS.
#
#   scripts/generic_call_cost.sh [BUILD_DIR]    (default: build)
#   env: MODE=ceiling ROUNDS=5 DURATION=5 WARMUP=1 ITEMS=200 JSON_DIR=DIR (keep reports)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
mode=${MODE:-ceiling} rounds=${ROUNDS:-5} seconds=${DURATION:-5} warmup=${WARMUP:-1} items=${ITEMS:-200}
require_positive_integers rounds seconds warmup items
require_reco_binaries "$build"
measurement_work_dir work json_dir

start_reco_server "$work/server.log" "$build/server/reco_server" --mode "$mode" || exit 1
target="$mode=127.0.0.1:$SERVER_PORT"
# reco_load's first request (RequestSet::Variant 0), as JSON for --data.
data="{\"user_id\": \"load-user-0\", \"item_count\": $items, \"text_profile\": \"TEXT_PROFILE_REALISTIC\", \"seed\": 1}"
common=(--target "$target" --rounds 1 --duration "$seconds" --warmup "$warmup" --quiet)

run() {  # PATH ROUND
  local path=$1 round=$2 out="$json_dir/$1-$2.json"
  if [ "$path" = recommend ]; then
    "$build/client/reco_load" "${common[@]}" --items "$items" --variants 1 --json "$out" >/dev/null
  else
    "$build/client/reco_load" "${common[@]}" --call reco.v1.Recommender/Recommend --proto proto/reco.proto \
      --data "$data" --json "$out" >/dev/null
  fi
  echo "$round $path $out" >>"$work/runs.txt"
}

paired_rounds "$rounds" run recommend generic
/usr/bin/python3 scripts/lib/variant_ratios.py "$work/runs.txt" generic recommend
