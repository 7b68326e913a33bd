#!/usr/bin/env bash
# One client's never-reading connections through the shipped edge (haproxy, then
# nghttpx, whose backend connections carry every client) in front of reco_server with
# the edge's flags (edge/reco_server.flags: --client_header x-forwarded-for
# --max_connection_budget_share 1, one stream per connection):
#   - two attacking connections from 127.0.0.2 (raw_http2_client.py never_read_mix,
#     a stream window of 0) hold at most the client's share of the budget (half);
#   - meanwhile another client (127.0.0.1) gets its 200-item calls through the edge:
#     at least 95 % OK, none wrong (reco_load verifies them byte for byte);
#   - once the watchdog has cancelled the attacker's calls (--max_reply_hold 2s), a
#     new connection of it is refused at once, naming --max_reply_hold.
# Without the client header the edge's connection is one client: the probes share
# the attacker's share, then its penalty, and fail.
#   edge_fairness_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/lib/reco_servers.sh"
command -v nghttpx >/dev/null || fail "nghttpx is not installed (scripts/setup.sh installs nghttp2-proxy)"
reco_test_dir tmp

start_reco_server "$tmp/s.out" "$server" --mode arena_pool --metrics_listen 127.0.0.1:0 --max_reply_hold 2s \
  "${EDGE_SERVER_FLAGS[@]}" || fail "reco_server did not start"
metrics=$(grep -o 'metrics=127.0.0.1:[0-9]*' "$tmp/s.out" | cut -d: -f2)
start_edge "$tmp/edge.log" "$SERVER_PORT" || fail "the edge did not start"
metric() {  # metric NAME: its value now, from the server's metrics
  /usr/bin/python3 -c 'import sys, urllib.request
for line in urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode().splitlines():
    if line.split("{")[0].split(" ")[0] == sys.argv[2]: print(int(float(line.split()[-1])))' "$metrics" "$1"
}
in_use() { metric reco_reply_budget_in_use_bytes; }
capacity=268435456
attack=(never_read_mix "16x10000,32x1000,64x100,64x10" 4)
attackers=()
for i in 1 2; do
  RAW_HTTP2_SOURCE=127.0.0.2 /usr/bin/python3 "$here/raw_http2_client.py" "$EDGE_PORT" "${attack[@]}" >"$tmp/attack$i.json" &
  attackers+=($!)
done
for _ in $(seq 200); do [ "$(in_use)" -ge $((capacity / 4)) ] && break; sleep 0.05; done
held=$(in_use)
[ "$held" -ge $((capacity / 4)) ] || fail "the attack never took hold ($held bytes reserved): it proves nothing"
# As soon as the watchdog has cancelled the attacker's calls (its penalty then runs
# for --max_reply_hold), the attacker tries a new connection.
(
  for _ in $(seq 400); do [ "$(metric reco_reply_budget_cancelled_held_total)" -gt 0 ] && break; sleep 0.05; done
  RAW_HTTP2_SOURCE=127.0.0.2 /usr/bin/python3 "$here/raw_http2_client.py" "$EDGE_PORT" never_read_flood 4 10000 0.5 \
    >"$tmp/again.json"
) &
again=$!
timeout 60 "$load" --target "probe=127.0.0.1:$EDGE_PORT" --duration 3s --warmup 0s --rounds 1 --connections 1 \
  --concurrency 1 --verify_every 1 --max_error_rate 1 --quiet --json "$tmp/probe.json" >"$tmp/probe.out" 2>&1 ||
  fail "reco_load through the edge: $(cat "$tmp/probe.out")"
wait "${attackers[@]}" "$again"
peak=$(/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["targets"][0]["rounds"][0]
c = r["client"]
print(c["ok"], c["completed"], c["wrong_content"] + c["wrong_item_count"])' "$tmp/probe.json") || fail "report: $(head -c 2000 "$tmp/probe.json")"
read -r ok completed wrong <<<"$peak"
echo "edge fairness: the attacker held $held of $capacity bytes; probes $ok OK of $completed, $wrong wrong"
[ "$wrong" = 0 ] || fail "$wrong wrong replies"
[ "$completed" -ge 5 ] && [ $((ok * 100)) -ge $((completed * 95)) ] || fail "probes: $ok OK of $completed"
[ "$held" -le $((capacity / 2 + capacity / 64)) ] || fail "one client held $held bytes, past half the budget"
/usr/bin/python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))
assert a["statuses"].get("8") == 4, a
assert any("--max_reply_hold" in m for m in a["messages"]), a' "$tmp/again.json" ||
  fail "the attacker's new connection was not refused for its penalty: $(cat "$tmp/again.json")"
echo "edge fairness: the attacker's new connection: $(cat "$tmp/again.json")"
stop_edge
stop_reco_server
echo PASS
