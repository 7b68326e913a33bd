#!/usr/bin/env bash
# Compares reco_load with h2load (nghttp2-client), a third-party HTTP/2 load tool,
# against the same reco_server at the same concurrency: both closed loops with
# CONNECTIONS connections and CONCURRENCY requests in flight in all, alternating
# h2load and reco_load ROUNDS times so machine noise hits both. Prints each run's
# req/s, the medians and their ratio (reco_load / h2load), and the median of the
# per-round ratios.
#
#   client/compare_h2load.sh [BUILD_DIR]    (default: build)
#   env: MODE=heap DURATION=8 ROUNDS=3 CONCURRENCY=16 CONNECTIONS=2 ITEMS=200
#
# h2load counts every HTTP 200 as a success, gRPC errors included: the script checks
# the bytes it received per request against the response size instead.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mode=${MODE:-heap} seconds=${DURATION:-8} rounds=${ROUNDS:-3}
concurrency=${CONCURRENCY:-16} connections=${CONNECTIONS:-2} items=${ITEMS:-200}
[ $((concurrency % connections)) -eq 0 ] || { echo "CONCURRENCY must be a multiple of CONNECTIONS" >&2; exit 2; }
command -v h2load >/dev/null || { echo "h2load is not installed (package nghttp2-client; scripts/setup.sh)" >&2; exit 1; }
for bin in "$build/server/reco_server" "$build/client/reco_load"; do
  [ -x "$bin" ] || { echo "$bin is missing: run scripts/build.sh first" >&2; exit 1; }
done

work=$(mktemp -d)
. scripts/lib/reco_servers.sh
trap 'stop_reco_servers || true; rm -rf "$work"' EXIT

start_reco_server "$work/server.log" "$build/server/reco_server" --mode "$mode" || exit 1
port=$SERVER_PORT

"$build/client/reco_load" --target "x=127.0.0.1:$port" --items "$items" --write_request "$work/req.bin"
per_conn=$((concurrency / connections))
h2_cmd=(h2load -D "$seconds" --warm-up-time 1 -c "$connections" -m "$per_conn" -d "$work/req.bin"
        -H 'content-type: application/grpc' -H 'te: trailers' "http://127.0.0.1:$port/reco.v1.Recommender/Recommend")
rl_cmd=("$build/client/reco_load" --target "$mode=127.0.0.1:$port" --duration "$seconds" --warmup 1 --rounds 1
        --concurrency "$concurrency" --connections "$connections" --items "$items" --quiet --json "$work/rl.json")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
echo "h2load:    ${h2_cmd[*]}"
echo "reco_load: ${rl_cmd[*]}"
h2_rates=() rl_rates=()
for round in $(seq "$rounds"); do
  # bash's `time` gives the child's CPU seconds: how much of the machine h2load took.
  TIMEFORMAT='%U %S %R'
  { time "${h2_cmd[@]}" >"$work/h2.out" 2>&1; } 2>"$work/h2.time"
  out=$(cat "$work/h2.out")
  h2_cpu=$(awk '{printf "%.0f", 100 * ($1 + $2) / $3}' "$work/h2.time")
  rate=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
  done_n=$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' <<<"$out")
  data=$(sed -n 's/^traffic: .*, \([0-9.]*[KMG]*B\) (\([0-9]*\)) data.*/\2/p' <<<"$out")
  if [ -z "$rate" ] || [ -z "$done_n" ] || [ "$done_n" -eq 0 ] || [ $((data / done_n)) -lt 1000 ]; then
    echo "h2load run failed or received too little per request:"; echo "$out"; exit 1
  fi
  rl_out=$("${rl_cmd[@]}")
  read -r rl_rate rl_cpu < <(/usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["targets"][0]["client"]
print(round(c["ok"] / c["seconds"], 2), round(100 * c.get("client_cpu_seconds", 0) / c["seconds"]))' "$work/rl.json")
  echo "round $round: h2load $rate req/s ($((data / done_n)) data bytes/request incl. warm-up, ${h2_cpu}% of a CPU);" \
       "reco_load $rl_rate req/s (${rl_cpu}% of a CPU)"
  h2_rates+=("$rate") rl_rates+=("$rl_rate")
done
/usr/bin/python3 - "${h2_rates[*]}" "${rl_rates[*]}" <<'PY'
import statistics, sys
h2 = [float(x) for x in sys.argv[1].split()]
rl = [float(x) for x in sys.argv[2].split()]
mh, mr = statistics.median(h2), statistics.median(rl)
print(f"median req/s: h2load {mh:.0f}, reco_load {mr:.0f}; ratio of the medians reco_load/h2load = {mr / mh:.2f}")
# Each round runs the two back to back, so a round's own ratio cancels slow drifts
# in the machine's load; their median is the steadier figure.
paired = sorted(r / h for h, r in zip(h2, rl))
print(f"per-round ratios: {' '.join(f'{x:.2f}' for x in paired)}; median {statistics.median(paired):.2f}")
PY
