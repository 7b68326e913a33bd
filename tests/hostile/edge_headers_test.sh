#!/usr/bin/env bash
# Requests whose metadata gRPC refuses, through the shipped edge (nghttpx), whose
# backend connections carry every client's calls, in front of reco_server with the
# edge's flags (edge/reco_server.flags); another client's calls in flight meanwhile:
#   - 5 requests with 10 KiB of metadata (raw_http2_client.py headers metadata_10k):
#     past gRPC's 8 KiB limit, which fails later calls on the connection that carried
#     them. The edge's request-header-field-buffer (edge/nghttpx.conf) stops them at
#     the edge; with 16K there, other clients' calls failed (89 of them, issue 47).
#     None of the other client's calls may fail.
#   - 25 requests with a -bin header that is not base64 (binary_metadata_not_base64):
#     gRPC 1.51 answers one by closing its connection ("Failed parsing HTTP/2"). With
#     one stream per backend connection (--max_concurrent_streams=1) that is the bad
#     call's own connection; a call of the other client fails only when nghttpx put
#     it on a new connection before the server's SETTINGS said 1 (0-3 of them in six
#     runs here). At most one per bad request may fail; with the connections shared
#     (the flag left out) 200 and 215 failed in two runs.
#   - the other client: reco_load through the edge, 8 calls in flight, 200 items,
#     verified byte for byte.
#   edge_headers_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server "$tmp/s.out" "$server" --mode arena_pool --metrics_listen 127.0.0.1:0 "${EDGE_SERVER_FLAGS[@]}" ||
  fail "reco_server did not start"
metrics=$(grep -o 'metrics=127.0.0.1:[0-9]*' "$tmp/s.out" | cut -d: -f2)
calls() {  # the calls the server has ended, from its metrics
  /usr/bin/python3 -c 'import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(int(sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith("reco_rpcs_total"))))' "$metrics"
}
start_edge "$tmp/edge.log" "$SERVER_PORT" || fail "the edge did not start"
# run_beside CASE COUNT MAX_FAILED: COUNT requests of raw_http2_client.py's CASE, one
# after another, while the other client's calls flow through the edge; at most
# MAX_FAILED of those may fail and none be wrong, and every bad request is refused.
run_beside() {
  local case=$1 count=$2 max_failed=$3 i ok completed failed wrong
  timeout 60 "$load" --target "other=127.0.0.1:$EDGE_PORT" --duration 5s --warmup 0s --rounds 1 --connections 1 \
    --concurrency 8 --verify_every 1 --max_error_rate 1 --quiet --json "$tmp/$case.json" >"$tmp/$case.out" 2>&1 &
  local other=$! before
  before=$(calls)
  # The other client's calls are flowing through the edge before the bad requests come.
  for _ in $(seq 100); do [ "$(calls)" -gt "$before" ] && break; sleep 0.05; done
  [ "$(calls)" -gt "$before" ] || fail "$case: the other client's calls never reached the server"
  for i in $(seq "$count"); do
    timeout 20 /usr/bin/python3 "$here/raw_http2_client.py" "$EDGE_PORT" headers "$case" >"$tmp/$case.bad$i.json" 2>&1
  done
  wait "$other" || fail "$case: reco_load through the edge: $(cat "$tmp/$case.out")"
  for i in $(seq "$count"); do  # refused: an HTTP error (the edge's 431) or a gRPC one
    /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d["http_status"] == "200" and d["grpc_status"] in (0, None))' "$tmp/$case.bad$i.json" ||
      fail "$case: bad request $i was not refused: $(head -c 500 "$tmp/$case.bad$i.json")"
  done
  read -r ok completed failed wrong < <(/usr/bin/python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["targets"][0]["rounds"][0]["client"]
print(c["ok"], c["completed"], c["completed"] - c["ok"], c["wrong_content"] + c["wrong_item_count"])' "$tmp/$case.json") ||
    fail "$case: report: $(head -c 2000 "$tmp/$case.json")"
  echo "edge headers: $case: a bad request saw $(head -c 200 "$tmp/$case.bad1.json")"
  echo "edge headers: $case x $count: the other client's calls: $ok OK of $completed, $failed failed, $wrong wrong"
  [ "$completed" -ge 20 ] || fail "$case: the other client completed only $completed calls"
  [ "$failed" -le "$max_failed" ] && [ "$wrong" = 0 ] ||
    fail "$case: the bad requests failed $failed of the other client's calls ($wrong wrong; at most $max_failed may fail)"
}
run_beside metadata_10k 5 0
run_beside binary_metadata_not_base64 25 25
stop_edge
stop_reco_server
echo PASS
