#!/usr/bin/env bash
# A server that stops answering after reco_load's probe (SIGSTOP once its metrics
# count the probe's Recommend): the calls in flight when the window ends fail at their
# deadline (--timeout 3s, longer than the 1 s window), and those failures are the
# window's. reco_load must count them (DEADLINE_EXCEEDED) and exit 4 (--max_error_rate
# 0), not report 0 errors and exit 0 as it did.
#   tests/e2e/stalled_server_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
. "$(dirname "$0")/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server "$tmp/s.out" "$server" --mode heap --metrics_listen 127.0.0.1:0 || fail "reco_server did not start"
metrics=$(grep -o 'metrics=127.0.0.1:[0-9]*' "$tmp/s.out" | cut -d: -f2)
[ -n "$metrics" ] || fail "no metrics port: $(cat "$tmp/s.out")"

timeout 60 "$load" --target "stalled=127.0.0.1:$SERVER_PORT" --duration 1s --warmup 200ms --rounds 1 \
  --connections 1 --timeout 3s --probe_deadline 1s --quiet --json "$tmp/r.json" >"$tmp/l.out" 2>"$tmp/l.err" &
load_pid=$!
# The probe (one connection: one call) is the server's first Recommend: stop the
# server once it is counted.
for _ in $(seq 1000); do
  /usr/bin/python3 -c 'import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=2).read().decode()
sys.exit(0 if any(l.startswith("reco_rpcs_total{") and not l.rstrip().endswith(" 0") for l in text.splitlines()) else 1)' \
    "$metrics" 2>/dev/null && break
  sleep 0.01
done
kill -STOP "$SERVER_PID"
wait "$load_pid"
rc=$?
kill -CONT "$SERVER_PID"
[ "$rc" = 4 ] || fail "reco_load exited $rc, want 4 (errors over --max_error_rate): $(cat "$tmp/l.err")"
deadline=$(/usr/bin/python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
print(sum(r["client"]["errors_by_code"].get("DEADLINE_EXCEEDED", 0) for r in t["rounds"]))' "$tmp/r.json") ||
  fail "report: $(head -c 2000 "$tmp/r.json")"
[ "$deadline" -ge 1 ] || fail "no DEADLINE_EXCEEDED counted: $(head -c 2000 "$tmp/r.json")"
echo "reco_load: exit 4, $deadline call(s) DEADLINE_EXCEEDED after the window; $(tail -1 "$tmp/l.err")"
stop_reco_server
echo PASS
