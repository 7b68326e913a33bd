#!/usr/bin/env bash
# Does a mode's cost grow linearly with the reply? Server CPU per ITEM at 1,000 and
# 10,000 items against its cost at 200, per mode, paired: each round runs every mode
# in turn, and each mode's sizes back to back (one reco_load run of that one target
# per size), and round r at N items is divided by round r at 200. A pair is then
# seconds apart, not a sweep of all the modes apart, so the shared machine's drift
# between its two halves is small; the sizes go up in odd rounds and down in even
# ones, so what drift remains hits both ends alike. 1.0 is linear; the issue's goals
# (issue 25): fragments <= 1.1, arena_pool <= 1.2 at 10,000 items.
#
#   scripts/scaling.sh [BUILD_DIR]       (default: build)
#   env: ROUNDS=5 DURATION=4 WARMUP=1 MODES="heap arena_pool fragments" ITEMS="200 1000 10000"
#        VARIANTS=4    reco_load's --variants: distinct requests cycled through
#        PROFILE=realistic  reco_load's --profile (compact: every string in the reply
#                      fits libstdc++'s small-string buffer, so an arena holds it all)
#        JSON_DIR=DIR  keep the reports there (items-N-round-R-MODE.json) and scaling.json,
#                      the per-item ratios (and each server phase's wall time per item,
#                      to show where a mode grows) that docs/results/ keeps
# MODES may include ceiling: a server per size, each serving that size's one reply,
# the transport's own cost per item with no build at all.
# VARIANTS decides how much of the catalogue the replies read. Each variant picks its
# own items, so 4 variants of 200 items read 800 catalogue items, which stay in the
# CPU's caches, while one 10,000-item reply reads the whole catalogue from memory:
# the ratio then also measures the catalogue falling out of cache. VARIANTS=64 reads
# most of the catalogue at every size, and leaves the reply's own size.
# 1 connection x 4 calls in flight, and servers whose one connection may use the whole
# reply budget (--max_connection_budget_share 1 --max_client_budget_share 1; by default
# a connection, and a client, gets half, and a closed loop's next call can arrive
# before the last one's reservation is returned):
# every 10,000-item call is served, none refused. About ROUNDS x
# (number of ITEMS) x (number of MODES) x (WARMUP + DURATION + 1) seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-5} seconds=${DURATION:-4} warmup=${WARMUP:-1}
modes=${MODES:-heap arena_pool fragments} items=${ITEMS:-200 1000 10000} variants=${VARIANTS:-4} profile=${PROFILE:-realistic}
require_positive_integers rounds seconds warmup variants
for n in $items; do
  case $n in ''|*[!0-9]*) echo "scaling: ITEMS: '$n' is not a whole number" >&2; exit 2 ;; esac
  [ "$n" -ge 1 ] && [ "$n" -le 10000 ] || { echo "scaling: ITEMS: $n is not in 1-10000" >&2; exit 2; }
done
case $profile in realistic|compact) ;; *) echo "scaling: PROFILE: '$profile' is not realistic or compact" >&2; exit 2 ;; esac
require_reco_binaries "$build"
measurement_work_dir work json_dir
echo "machine before run: $(machine_load_line)"
# The ceiling serves one fixed reply, so it has a server per size (ports[ceiling-N]);
# the other modes one server for all sizes (ports[MODE]).
declare -A ports=()
for mode in $modes; do
  if [ "$mode" = ceiling ]; then
    for n in $items; do
      start_reco_server "$work/ceiling-$n.log" "$build/server/reco_server" --mode ceiling \
        --ceiling_items "$n" --ceiling_profile "$profile" --max_connection_budget_share 1 --max_client_budget_share 1 || exit 1
      ports[ceiling-$n]=$SERVER_PORT
    done
    continue
  fi
  start_reco_server "$work/$mode.log" "$build/server/reco_server" --mode "$mode" \
    --max_connection_budget_share 1 --max_client_budget_share 1 || exit 1
  ports[$mode]=$SERVER_PORT
done
# shellcheck disable=SC2086  # ITEMS is a list, split on spaces
ascending=$items descending=$(printf '%s\n' $items | tac | paste -sd' ')
for round in $(seq "$rounds"); do
  sizes=$ascending
  [ $((round % 2)) -eq 1 ] || sizes=$descending
  echo "round $round/$rounds: items $sizes"
  for mode in $modes; do
    for n in $sizes; do
      port=${ports[$mode]:-${ports[ceiling-$n]:-}}
      "$build/client/reco_load" --target "$mode=127.0.0.1:$port" --items "$n" --variants "$variants" \
        --profile "$profile" --connections 1 --concurrency 4 --threads 1 --rounds 1 --duration "$seconds" \
        --warmup "$warmup" --quiet --json "$json_dir/items-$n-round-$round-$mode.json" \
        >"$work/load.txt" 2>&1 || { cat "$work/load.txt" >&2; exit 1; }
    done
  done
done
# shellcheck disable=SC2086  # ITEMS is a list, split on spaces
/usr/bin/python3 scripts/lib/scaling_ratios.py "$json_dir" $items >"$json_dir/scaling.json"
/usr/bin/python3 scripts/lib/scaling_ratios.py --table "$json_dir/scaling.json"
[ -z "${JSON_DIR:-}" ] || echo "kept: $json_dir/scaling.json and the reports beside it"
