#!/usr/bin/env bash
# Requests per second of reco_server in each memory mode under h2load, with the
# server's phase measurement on and off, plus the server's own per-RPC figures.
# The numbers docs/server.md quotes come from this script.
#   scripts/h2load_modes.sh [BUILD_DIR] [REQUESTS] [PROFILE compact|realistic] [ROUNDS]
# Each run: h2load -n REQUESTS -c 4 -m 4 -t 1 (4 connections x 4 streams, 1 thread),
# 200 items per response; modes and measure on/off are interleaved, ROUNDS times.
set -euo pipefail
. "$(dirname "$0")/lib/script_flags.sh"
parse_positionals "$0" "$@"
build=${1:-build}
requests=${2:-3000}
profile=${3:-compact}
rounds=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
server=$build/server/reco_server
. "$here/lib/reco_servers.sh"
reco_test_dir tmp

# user_id "ledger-user", item_count 200, text_profile, seed 1 (the ledger's request).
case $profile in
  compact) printf '\x00\x00\x00\x00\x14\x0a\x0bledger-user\x10\xc8\x01\x18\x01\x20\x01' >"$tmp/req.bin" ;;
  realistic) printf '\x00\x00\x00\x00\x12\x0a\x0bledger-user\x10\xc8\x01\x20\x01' >"$tmp/req.bin" ;;
  *) fail "profile must be compact or realistic" ;;
esac

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "h2load -n $requests -c 4 -m 4 -t 1, 200 items, $profile text"
printf '%-10s %-8s %5s %9s %12s %12s %12s %10s\n' mode measure round "req/s" "build_allocs" "proc_allocs" "cpu_us/rpc" "build_p50us"
for round in $(seq "$rounds"); do
  for mode in heap reuse arena arena_pool; do
    for measure in true false; do
      start_reco_server --stderr "$tmp/s.err" "$tmp/s.out" "$server" --mode "$mode" --measure="$measure" ||
        fail "$mode: reco_server did not start"
      # A short warm-up so pools and gRPC's buffers are filled before the timed run.
      h2load -n 200 -c 4 -m 4 -t 1 -d "$tmp/req.bin" -H 'content-type: application/grpc' -H 'te: trailers' \
        "http://127.0.0.1:$SERVER_PORT/reco.v1.Recommender/Recommend" >/dev/null
      h2load -n "$requests" -c 4 -m 4 -t 1 -d "$tmp/req.bin" -H 'content-type: application/grpc' \
        -H 'te: trailers' "http://127.0.0.1:$SERVER_PORT/reco.v1.Recommender/Recommend" >"$tmp/h2.out"
      grep -q "$requests succeeded, 0 failed" "$tmp/h2.out" || fail "$mode: $(grep requests: "$tmp/h2.out")"
      stop_reco_server
      rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$tmp/h2.out")
      build=$(awk '/^build / && !/not measured/{print $5}' "$tmp/s.out")
      p50=$(awk '/^build / && !/not measured/{print $2}' "$tmp/s.out")
      proc=$(sed -n 's/^process: \([0-9.]*\) allocs\/rpc.*/\1/p' "$tmp/s.out")
      cpu=$(sed -n 's/.*(\([0-9.]*\) us\/rpc).*/\1/p' "$tmp/s.out")
      printf '%-10s %-8s %5s %9s %12s %12s %12s %10s\n' "$mode" "$measure" "$round" "$rps" "${build:--}" \
        "$proc" "$cpu" "${p50:--}"
    done
  done
done
