#!/usr/bin/env bash
# The stats library preloaded into a server built without it, read by reco_load in
# one run: a plain feed.v1.Feed server (stats/plain_feed_server.cc: GetFeed makes
# post_count mallocs) started with LD_PRELOAD=libreco_server_stats_preload.so, driven
# with --call and --total. The server cannot count its RPCs, so reco_load divides by
# the calls it completed (exactly --total), says so, and the per-RPC process
# allocations include the handler's post_count.
#   tests/e2e/preload_stats_test.sh SOURCE_ROOT PLAIN_SERVER PRELOAD_LIB RECO_LOAD
set -uo pipefail
src=$1 plain=$2 preload_lib=$3 load=$4
. "$src/scripts/lib/reco_servers.sh"
reco_test_dir tmp
mkfifo "$tmp/stdin"
LD_PRELOAD=$preload_lib RECO_SERVER_STATS_LABEL=plain "$plain" <"$tmp/stdin" >"$tmp/plain.out" 2>&1 &
plain_pid=$!
exec 7>"$tmp/stdin"  # the server serves until its stdin closes
trap 'exec 7>&-; wait "$plain_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q '^port ' "$tmp/plain.out" && break; sleep 0.1; done
port=$(sed -n 's/^port \([0-9]*\)$/\1/p' "$tmp/plain.out")
[ -n "$port" ] || fail "the plain server printed no port: $(cat "$tmp/plain.out")"

expect_run 0 "" "$tmp" "$load" --target "plain=127.0.0.1:$port" --call feed.v1.Feed/GetFeed \
  --proto "$src/patterns/testing/feed.proto" --data '{"post_count": 100}' --total 200 --rounds 2 --warmup 100ms \
  --quiet --json "$tmp/r.json"
grep -q "cannot count its RPCs" "$tmp/l.out" || fail "no note that the client counted the RPCs: $(cat "$tmp/l.out")"
/usr/bin/python3 - "$tmp/r.json" <<'PY' || fail "report: $(cat "$tmp/l.out")"
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
s = t["server"]
assert s["available"] and s["source"] == "reco_server_stats_preload" and s["rpcs_from_client"], s
assert s["rpcs"] == 400, s["rpcs"]  # the calls reco_load completed: 2 rounds x --total 200
assert t["figures"]["server_process_allocs_per_rpc"] >= 100, t["figures"]  # the handler's 100 mallocs
assert t["figures"]["server_build_allocs_per_rpc"] is None  # nothing calls StatsBuildScope
print("ok: preloaded stats read by reco_load, RPCs from the client,",
      round(t["figures"]["server_process_allocs_per_rpc"], 1), "process allocs/RPC")
PY
echo PASS
