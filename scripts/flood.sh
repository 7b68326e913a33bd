#!/usr/bin/env bash
# Floods reco_server (DEFAULT flags) with 10,000-item calls, as issue 10 measured it
# before the reply budget existed (one connection of 256 such calls took it to 6.2 GB):
# for each MODE and each number of CONNECTIONS,
#   reading:       reco_load with CALLS calls in flight per connection for HOLD
#                  seconds (a closed loop: every finished call is replaced at once);
#   never reading: one raw HTTP/2 client per connection (raw_http2_client.py
#                  never_read_flood) opening CALLS such calls with a stream window of
#                  0, holding them HOLD seconds, then dropping the connection;
# then IDLE seconds of quiet. Prints, per run, the calls answered OK and refused
# (RESOURCE_EXHAUSTED), the server's peak RSS during the flood and its RSS after the
# idle time, against its RSS before; fails (exit 1) when a peak passes the bound
#   --inflight_budget_bytes (256 MiB) + OVERHEAD_MIB (default 160: gRPC's per-call and
#   transport memory for 1,024 streams, the arena_pool pool, glibc's rounding)
# or when a correct request fails after the flood.
#
#   scripts/flood.sh [BUILD_DIR]        (default: build)
#   env: MODES="heap reuse arena arena_pool fragments" CONNECTIONS="1 2 4" CALLS=256 ITEMS=10000
#        HOLD=5 IDLE=10 OVERHEAD_MIB=160 JSON_DIR=(none)
#        SERVER_FLAGS="" (more reco_server flags, e.g. "--api async"; the bound assumes
#        the default budget, so not --inflight_budget_bytes)
# The test suite runs it short: MODES="arena_pool fragments" CONNECTIONS=2 HOLD=1 IDLE=1.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
modes=${MODES:-heap reuse arena arena_pool fragments} connections_list=${CONNECTIONS:-1 2 4}
server_flags=${SERVER_FLAGS:-}
calls=${CALLS:-256} items=${ITEMS:-10000} hold=${HOLD:-5} idle=${IDLE:-10} overhead_mib=${OVERHEAD_MIB:-160}
require_reco_binaries "$build"
require_positive_integers calls items hold idle overhead_mib
raw_client=tests/hostile/raw_http2_client.py
budget_mib=256  # reco_server's default --inflight_budget_bytes
bound_mib=$((budget_mib + overhead_mib))

measurement_work_dir work

kib() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$2/status"; }
mib() { echo $(( $1 / 1024 )); }

echo "machine: $(machine_cpus)"
[ -z "$server_flags" ] || echo "reco_server flags: $server_flags"
echo "bound on peak RSS: ${budget_mib} MiB budget + ${overhead_mib} MiB overhead = ${bound_mib} MiB"
printf '%-11s %-13s %5s %7s %8s %9s %10s %9s\n' mode client conns ok refused "rss_MiB" "peak_MiB" "after_MiB"
failed=0
for mode in $modes; do
  # shellcheck disable=SC2086  # SERVER_FLAGS is a list of flags, split on spaces
  start_reco_server "$work/$mode.log" "$build/server/reco_server" --mode "$mode" $server_flags || exit 1
  port=$SERVER_PORT pid=$SERVER_PID
  for conns in $connections_list; do
    for client in reading never_reading; do
      before=$(kib VmRSS "$pid")
      echo 5 > "/proc/$pid/clear_refs"  # VmHWM restarts from VmRSS
      if [ "$client" = reading ]; then
        "$build/client/reco_load" --target "$mode=127.0.0.1:$port" --connections "$conns" \
          --concurrency $((conns * calls)) --items "$items" --duration "${hold}s" --warmup 0s --rounds 1 \
          --max_error_rate 1 --quiet --json "$work/flood.json" >/dev/null
        read -r ok refused < <(/usr/bin/python3 scripts/flood_counts.py reco_load "$work/flood.json")
      else
        raw_pids=()
        for ((i = 0; i < conns; i++)); do
          /usr/bin/python3 "$raw_client" "$port" never_read_flood "$calls" "$items" "$hold" >"$work/raw$i.json" &
          raw_pids+=($!)
        done
        wait "${raw_pids[@]}"  # not a bare wait: the server is a child too
        read -r ok refused < <(/usr/bin/python3 scripts/flood_counts.py raw "$work"/raw*.json)
        rm -f "$work"/raw*.json
      fi
      peak=$(kib VmHWM "$pid")
      sleep "$idle"
      after=$(kib VmRSS "$pid")
      printf '%-11s %-13s %5s %7s %8s %9s %10s %9s\n' "$mode" "$client" "$conns" "$ok" "$refused" \
        "$(mib "$before")" "$(mib "$peak")" "$(mib "$after")"
      if [ "$(mib "$peak")" -gt "$bound_mib" ]; then
        echo "FAIL: peak RSS $(mib "$peak") MiB is over the bound of $bound_mib MiB" >&2
        failed=1
      fi
    done
  done
  # The server still serves correct requests, byte for byte.
  if ! "$build/client/reco_load" --target "$mode=127.0.0.1:$port" --duration 0.5s --warmup 0s --rounds 1 \
      --concurrency 2 --verify_every 1 --max_error_rate 0 --quiet >/dev/null; then
    echo "FAIL: $mode: a correct request failed after the floods" >&2
    failed=1
  fi
  stop_reco_server "$pid"
done
exit "$failed"
