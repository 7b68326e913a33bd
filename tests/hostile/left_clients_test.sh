#!/usr/bin/env bash
# Clients that ask for large replies and leave at once (issue 47, attack 3): 4
# connections from 127.0.0.2 each send 256 calls of 10,000 realistic items
# (raw_http2_client.py send_and_leave) and close without reading, against an
# arena_pool server on each API (--api async and callback), directly or through the
# shipped edge. Then another client (127.0.0.1) gets its 200-item calls for 1 s,
# byte-exact: at least 95 % OK (attacker_status.sh's probe); and the server built at
# most 64 replies for the clients that left (its OK calls, less the probe's). Before
# issue 47 the async API built all 1,024 replies, and other clients got nothing for
# 15 s; with its stop checks it sees the calls cancelled and builds almost none.
# Skipped under a sanitizer (the builds are slow enough there to starve the probe).
#   left_clients_test.sh RECO_SERVER RECO_LOAD direct|edge
set -uo pipefail
server=$1 load=$2 via=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp
if sanitized_build "$server"; then echo "SKIP: under a sanitizer the builds starve the probe"; exit 0; fi
. "$here/attacker_status.sh"

ok_calls() {  # the server's calls that ended OK, from its metrics
  /usr/bin/python3 -c 'import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(int(sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith("reco_rpcs_total{") and "code=\"OK\"" in l)))' \
    "$1"
}

for api in async callback; do
  # Behind the edge with the edge's flags (edge/reco_server.flags), as compose and
  # k8s/production run it; direct, the attackers' address may use the whole cap.
  flags=(--max_connections_per_source 0)
  [ "$via" = edge ] && flags=("${EDGE_SERVER_FLAGS[@]}")
  start_reco_server "$tmp/$api.out" "$server" --mode arena_pool --api "$api" --metrics_listen 127.0.0.1:0 \
    "${flags[@]}" || fail "$api: reco_server did not start"
  metrics=$(grep -o 'metrics=127.0.0.1:[0-9]*' "$tmp/$api.out" | cut -d: -f2)
  port=$SERVER_PORT
  if [ "$via" = edge ]; then
    start_edge "$tmp/edge.$api.out" "$SERVER_PORT" || fail "$api: the edge did not start"
    port=$EDGE_PORT
  fi
  attackers=()
  for i in 1 2 3 4; do
    RAW_HTTP2_SOURCE=127.0.0.2 timeout 30 /usr/bin/python3 "$here/raw_http2_client.py" "$port" send_and_leave 256 10000 \
      >"$tmp/$api.$i.json" 2>&1 &
    attackers+=($!)
  done
  wait "${attackers[@]}" || fail "$api $via: an attacker failed: $(cat "$tmp/$api."*.json)"
  sent=$(/usr/bin/python3 -c 'import json, sys; print(sum(json.load(open(f))["sent"] for f in sys.argv[1:]))' \
    "$tmp/$api."[1-4].json)
  probe "$api.$via" "$port"
  probe_ok=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["targets"][0]["rounds"][0]["client"]["ok"])' "$tmp/$api.$via.json")
  built=$(($(ok_calls "$metrics") - probe_ok))
  echo "$api $via: $sent calls sent by clients that left; replies built for them: at most $built"
  [ "$built" -le 64 ] || fail "$api $via: $built replies built for clients that left (of $sent)"
  [ "$via" = edge ] && stop_edge
  stop_reco_server
done
echo PASS
