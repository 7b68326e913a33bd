#!/usr/bin/env bash
# Is reco_load the limit? Runs reco_load and h2load (nghttp2-client, a C HTTP/2 load
# tool that checks nothing in the replies) against the same reco_server of each mode,
# at equal concurrency (both closed loops, CONNECTIONS connections, CONCURRENCY
# requests in flight in all, THREADS threads), in interleaved rounds: round r runs
# every mode with both tools back to back (which tool goes first alternates by round),
# so machine noise hits both alike and each round gives one paired ratio
# reco_load / h2load.
#
#   scripts/compare_h2load.sh [BUILD_DIR]    (default: build)
#   env: MODES="ceiling arena_pool" ROUNDS=5 DURATION=5 WARMUP=1 CONCURRENCY=16
#        CONNECTIONS=2 ITEMS=200 THREADS=(one per connection, at most the CPUs; both tools)
#        JSON=FILE (per-run figures) SUMMARY=FILE (the summary as JSON: bench/matrix.sh)
#        BUSY_LOOPS=N  N shell busy loops run alongside for the whole run: "other load
#                      present" (issue 25: reco_load >= 0.9x h2load's req/s even then)
#        SYSCALLS=1    also count each tool's socket writes (perf stat on the kernel's
#                      syscall tracepoints; needs perf, package linux-perf, and root or
#                      perf_event_paranoid <= -1): how many requests each tool sends per
#                      write. h2load writes the requests its event loop has ready in one
#                      writev; a gRPC client writes each call on its own.
#
# Per run: req/s; the client's CPU per response (h2load: its whole process over
# warm-up + window; reco_load: its own process over the measured window, from its
# JSON); the server's CPU per RPC (from /proc/PID/stat over the whole run, divided by
# req/s x (warm-up + window) for both tools). The summary gives, per mode, the median
# [min-max] of the per-round ratios; the goals: reco_load >= 0.9x h2load's req/s on the
# ceiling and on arena_pool (issue 12), its client CPU per response <= 1.3x h2load's
# (issue 25). With the ceiling among MODES, each other mode's share of the ceiling's
# req/s, per tool.
#
# reco_load sends one request (--variants 1), the one h2load sends: with its default 4
# variants the server builds from 4x the catalogue items, which is another workload.
#
# h2load counts every HTTP 200 as a success, gRPC errors included: the script checks
# the bytes it received per request against the response size instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
modes=${MODES:-ceiling arena_pool} rounds=${ROUNDS:-5} seconds=${DURATION:-5} warmup=${WARMUP:-1}
concurrency=${CONCURRENCY:-16} connections=${CONNECTIONS:-2} items=${ITEMS:-200}
busy_loops=${BUSY_LOOPS:-0} syscalls=${SYSCALLS:-0}
require_positive_integers rounds seconds warmup concurrency connections items
[[ $busy_loops =~ ^[0-9]+$ ]] || { echo "BUSY_LOOPS must be a whole number, not '$busy_loops'" >&2; exit 2; }
[[ $syscalls =~ ^[01]$ ]] || { echo "SYSCALLS must be 0 or 1, not '$syscalls'" >&2; exit 2; }
# Every call a tool can write a socket with: h2load uses writev, gRPC sendmsg.
write_events=syscalls:sys_enter_sendmsg,syscalls:sys_enter_writev,syscalls:sys_enter_sendto,syscalls:sys_enter_sendmmsg
if [ "$syscalls" = 1 ] && ! perf stat -x, -o /dev/null -e "$write_events" true 2>/dev/null; then
  echo "SYSCALLS=1 needs perf with the syscall tracepoints (apt install linux-perf; as root," \
       "or with kernel.perf_event_paranoid <= -1)" >&2; exit 1
fi
[ $((concurrency % connections)) -eq 0 ] || { echo "CONCURRENCY must be a multiple of CONNECTIONS" >&2; exit 2; }
command -v h2load >/dev/null || { echo "h2load is not installed (package nghttp2-client; scripts/setup.sh)" >&2; exit 1; }
require_reco_binaries "$build"

measurement_work_dir work

declare -A port pid
for mode in $modes; do
  start_reco_server "$work/server-$mode.log" "$build/server/reco_server" --mode "$mode" || exit 1
  port[$mode]=$SERVER_PORT pid[$mode]=$SERVER_PID
done
first=${modes%% *}
"$build/client/reco_load" --target "x=127.0.0.1:${port[$first]}" --items "$items" --write_request "$work/req.bin"

per_conn=$((concurrency / connections))
# Both tools get the same threads: THREADS, or reco_load's default (one per
# connection, at most the CPUs); h2load runs one event loop per thread (-t).
threads=${THREADS:-$(( connections < $(nproc) ? connections : $(nproc) ))}
ticks=$(getconf CLK_TCK)
cpu_seconds_of() { awk -v t="$ticks" '{print ($14 + $15) / t}' "/proc/$1/stat"; }
TIMEFORMAT='%U %S %R'   # bash's `time`: the child's CPU seconds and wall time

# Runs a tool; with SYSCALLS=1 under perf stat, counting its socket writes (all its
# threads) into $work/writes.csv, which socket_writes reads back ("null" without).
counted() {
  if [ "$syscalls" = 1 ]; then perf stat -x, -o "$work/writes.csv" -e "$write_events" -- "$@"; else "$@"; fi
}
socket_writes() {
  if [ "$syscalls" = 1 ]; then /usr/bin/python3 scripts/compare_h2load_runs.py writes "$work/writes.csv"; else echo null; fi
}

# Each run appends one JSON line to $work/runs.jsonl.
run_h2load() {  # MODE ROUND
  local mode=$1 round=$2 out rate done_n data s0 s1 writes
  s0=$(cpu_seconds_of "${pid[$mode]}")
  { time counted h2load -D "$seconds" --warm-up-time "$warmup" -t "$threads" -c "$connections" -m "$per_conn" -d "$work/req.bin" \
      -H 'content-type: application/grpc' -H 'te: trailers' \
      "http://127.0.0.1:${port[$mode]}/reco.v1.Recommender/Recommend" >"$work/h2.out" 2>&1; } 2>"$work/h2.time"
  s1=$(cpu_seconds_of "${pid[$mode]}")
  out=$(cat "$work/h2.out")
  rate=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
  done_n=$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' <<<"$out")
  data=$(sed -n 's/^traffic: .*, \([0-9.]*[KMG]*B\) (\([0-9]*\)) data.*/\2/p' <<<"$out")
  if [ -z "$rate" ] || [ -z "$done_n" ] || [ "$done_n" -eq 0 ] || [ $((data / done_n)) -lt 1000 ]; then
    echo "h2load against $mode failed or received too little per request:" >&2; echo "$out" >&2; exit 1
  fi
  read -r user sys wall <"$work/h2.time"
  writes=$(socket_writes)
  echo "{\"tool\": \"h2load\", \"mode\": \"$mode\", \"round\": $round, \"rps\": $rate," \
       "\"client_cpu_seconds\": $(awk -v u="$user" -v s="$sys" 'BEGIN{print u + s}'), \"client_cpu_requests\": null," \
       "\"wall_seconds\": $wall, \"server_cpu_seconds\": $(awk -v a="$s0" -v b="$s1" 'BEGIN{print b - a}')," \
       "\"data_bytes_per_request\": $((data / done_n)), \"client_socket_writes\": $writes}" >>"$work/runs.jsonl"
}

run_reco_load() {  # MODE ROUND
  local mode=$1 round=$2 s0 s1 writes
  s0=$(cpu_seconds_of "${pid[$mode]}")
  counted "$build/client/reco_load" --target "$mode=127.0.0.1:${port[$mode]}" --duration "$seconds" --warmup "$warmup" \
    --rounds 1 --concurrency "$concurrency" --connections "$connections" --items "$items" --variants 1 \
    --threads "$threads" --quiet --json "$work/rl.json" >/dev/null
  s1=$(cpu_seconds_of "${pid[$mode]}")
  writes=$(socket_writes)
  /usr/bin/python3 scripts/compare_h2load_runs.py reco_load "$work/rl.json" "$mode" "$round" "$s0" "$s1" \
    "$writes" >>"$work/runs.jsonl"
}

echo "machine: $(machine_cpus);" \
     "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The busy loops are stopped when the script exits, however it ends (added to the
# EXIT trap of measurement_work_dir), and each ends by itself once the run would have.
busy_pids=()
for _ in $(seq "$busy_loops"); do
  timeout $((rounds * $(wc -w <<<"$modes") * 2 * (seconds + warmup + 2) + 60)) sh -c 'while :; do :; done' &
  busy_pids+=($!)
done
if [ "$busy_loops" -gt 0 ]; then
  exit_trap=$(trap -p EXIT | sed "s/^trap -- '\(.*\)' EXIT$/\1/")
  # shellcheck disable=SC2064  # the pids and the earlier trap, as they are now
  trap "kill ${busy_pids[*]} 2>/dev/null || true; $exit_trap" EXIT
fi
[ "$busy_loops" -eq 0 ] || echo "other load: $busy_loops busy loop(s) for the whole run"
echo "both tools: $threads thread(s), $connections connections x $per_conn streams, ${warmup} s warm-up + ${seconds} s, $items items;" \
     "modes: $modes; $rounds rounds"
: >"$work/runs.jsonl"
for round in $(seq "$rounds"); do
  for mode in $modes; do
    if [ $((round % 2)) -eq 1 ]; then run_h2load "$mode" "$round"; run_reco_load "$mode" "$round"
    else run_reco_load "$mode" "$round"; run_h2load "$mode" "$round"; fi
    tail -n2 "$work/runs.jsonl" | /usr/bin/python3 scripts/compare_h2load_runs.py round
  done
done
[ "$busy_loops" -eq 0 ] || kill "${busy_pids[@]}" 2>/dev/null || true   # before the summary's own work
/usr/bin/python3 scripts/compare_h2load_summary.py "$work/runs.jsonl" "$seconds" "$warmup" \
  ${SUMMARY:+--json "$SUMMARY"}
[ -z "${JSON:-}" ] || cp "$work/runs.jsonl" "$JSON"
