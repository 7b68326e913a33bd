#!/usr/bin/env bash
# Requests whose metadata gRPC refuses, through the shipped edge (nghttpx), whose one
# backend connection carries every client's calls: another client's calls in flight
# meanwhile must all succeed.
#   - 5 requests with 10 KiB of metadata (raw_http2_client.py headers metadata_10k):
#     past gRPC's 8 KiB limit, which fails later calls on the connection that carried
#     them. The edge's request-header-field-buffer (edge/nghttpx.conf) stops them at
#     the edge; with 16K there, other clients' calls failed (89 of them, issue 47).
#   - the other client: reco_load through the edge, 8 calls in flight, 200 items,
#     verified byte for byte; none may fail.
#   edge_headers_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server "$tmp/s.out" "$server" --mode arena_pool --metrics_listen 127.0.0.1:0 ||
  fail "reco_server did not start"
metrics=$(grep -o 'metrics=127.0.0.1:[0-9]*' "$tmp/s.out" | cut -d: -f2)
calls() {  # the calls the server has ended, from its metrics
  /usr/bin/python3 -c 'import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(int(sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith("reco_rpcs_total"))))' "$metrics"
}
start_edge "$tmp/edge.log" "$SERVER_PORT" || fail "the edge did not start"
timeout 60 "$load" --target "other=127.0.0.1:$EDGE_PORT" --duration 3s --warmup 0s --rounds 1 --connections 1 \
  --concurrency 8 --verify_every 1 --max_error_rate 1 --quiet --json "$tmp/other.json" >"$tmp/other.out" 2>&1 &
other=$!
# The other client's calls are flowing through the edge before the bad requests come.
for _ in $(seq 100); do [ "$(calls)" -gt 0 ] && break; sleep 0.05; done
[ "$(calls)" -gt 0 ] || fail "the other client's calls never reached the server"
for i in 1 2 3 4 5; do
  timeout 20 /usr/bin/python3 "$here/raw_http2_client.py" "$EDGE_PORT" headers metadata_10k >"$tmp/bad$i.json" 2>&1
  sleep 0.2
done
wait "$other" || fail "reco_load through the edge: $(cat "$tmp/other.out")"
read -r ok completed failed wrong < <(/usr/bin/python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["targets"][0]["rounds"][0]["client"]
print(c["ok"], c["completed"], c["completed"] - c["ok"], c["wrong_content"] + c["wrong_item_count"])' "$tmp/other.json") ||
  fail "report: $(head -c 2000 "$tmp/other.json")"
echo "edge headers: a bad request saw $(head -c 300 "$tmp/bad1.json")"
echo "edge headers: the other client's calls: $ok OK of $completed, $failed failed, $wrong wrong"
[ "$completed" -ge 20 ] || fail "the other client completed only $completed calls"
[ "$failed" = 0 ] && [ "$wrong" = 0 ] || fail "the bad requests failed $failed of the other client's calls ($wrong wrong)"
stop_edge
stop_reco_server
echo PASS
