#!/usr/bin/env bash
# What the memory guards of issue 10 cost per RPC: the reply budget (a context new'd
# per call, one reservation), the cancellation/deadline checks every 16 items and the
# malloc_trim thread, all on by default. For each MODE, two reco_server processes --
# guarded (defaults) and unguarded (--inflight_budget_bytes=0 --check_every_items=0
# --trim_interval=0) -- driven by reco_load in interleaved rounds (A B A B ...), so
# machine noise hits both. Prints, per mode, the median of the per-round ratios
# guarded / unguarded with their min-max, for server CPU/RPC, QPS and build p50, and the
# guarded server's trims; a ratio whose spread crosses 1.0 is "no measurable
# difference". Exact counts (process allocations per RPC) are printed side by side.
#
#   scripts/guard_cost.sh [BUILD_DIR]     (default: build)
#   env: MODES="heap arena_pool" ROUNDS=7 DURATION=5s ITEMS=200 JSON_DIR=(temporary)
# The test suite runs it short (ROUNDS=1 DURATION=1s) to keep it working.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
modes=${MODES:-heap arena_pool} rounds=${ROUNDS:-7} duration=${DURATION:-5s} items=${ITEMS:-200}
for bin in "$build/server/reco_server" "$build/client/reco_load"; do
  [ -x "$bin" ] || { echo "$bin is missing: run scripts/build.sh first" >&2; exit 1; }
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS=$rounds is not a positive integer" >&2; exit 2; }

work=$(mktemp -d)
json_dir=${JSON_DIR:-$work}
mkdir -p "$json_dir"
. scripts/lib/reco_servers.sh
trap 'stop_reco_servers || true; rm -rf "$work"' EXIT

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
for mode in $modes; do
  start_reco_server "$work/$mode-guarded.log" "$build/server/reco_server" --mode "$mode" || exit 1
  guarded=$SERVER_PORT
  start_reco_server "$work/$mode-unguarded.log" "$build/server/reco_server" --mode "$mode" \
    --inflight_budget_bytes=0 --check_every_items=0 --trim_interval=0 || exit 1
  unguarded=$SERVER_PORT
  "$build/client/reco_load" --target "guarded=127.0.0.1:$guarded" --target "unguarded=127.0.0.1:$unguarded" \
    --rounds "$rounds" --duration "$duration" --items "$items" --quiet --json "$json_dir/guard_cost_$mode.json" \
    >/dev/null
  stop_reco_servers
  /usr/bin/python3 - "$json_dir/guard_cost_$mode.json" "$mode" <<'EOF'
import json, statistics, sys
report, mode = json.load(open(sys.argv[1])), sys.argv[2]
by_name = {t["name"]: t for t in report["targets"]}
g, u = by_name["guarded"], by_name["unguarded"]
def ratios(key):
    out = []
    for rg, ru in zip(g["rounds"], u["rounds"]):
        a, b = rg["figures"].get(key), ru["figures"].get(key)
        if a is not None and b:
            out.append(a / b)
    return out
print(f"\n{mode}: guarded / unguarded over {len(g['rounds'])} paired rounds")
for key, label in [("server_cpu_us_per_rpc", "server CPU/RPC"), ("qps", "QPS"),
                   ("latency_p50_ms", "client p50 latency")]:
    r = ratios(key)
    if not r:
        print(f"  {label:22s} n/a"); continue
    med, lo, hi = statistics.median(r), min(r), max(r)
    verdict = "no measurable difference" if lo <= 1.0 <= hi else ""
    print(f"  {label:22s} x{med:.3f} [{lo:.3f}-{hi:.3f}] {verdict}")
for key, label in [("server_process_allocs_per_rpc", "process allocs/RPC"), ("server_trims", "malloc_trim calls"),
                   ("server_rpcs", "server RPCs")]:
    fmt = lambda v: "n/a" if v is None else f"{v:.1f}"
    print(f"  {label:22s} guarded {fmt(g['figures'].get(key))}  unguarded {fmt(u['figures'].get(key))}")
trim = g["server"].get("trim", {})
rpcs = g["server"].get("rpcs") or 0
if rpcs:
    print(f"  trim time per RPC      {trim.get('seconds', 0) * 1e6 / rpcs:.2f} us ({trim.get('trims', 0)} trims)")
EOF
done
