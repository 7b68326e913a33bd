#!/usr/bin/env bash
# Connections full of calls whose message never comes (held_streams.py, from
# 127.0.0.2: 256 Recommend HEADERS each, SETTINGS acknowledged) against the cap that
# --stream_memory_bytes sets, and another client's 200-item calls (reco_load, from
# 127.0.0.1, verified byte for byte) meanwhile. With --stream_memory_bytes 64 MiB the
# server holds at most 64 MiB / (20 KiB + 256 streams x 20 KiB) = 12 connections:
#   1. per source at its default, a quarter of that cap: of 20 connections 3 are
#      kept and 17 closed at once;
#   2. no per-source limit: of 40 connections 12 are kept and 28 closed at once; once
#      the 12 have been quiet for --handshake_timeout (2 s) the server shuts them
#      down to 3/4 of the cap, and the other client gets a connection.
# Each time the server's RSS grows by less than the 64 MiB bound (40 connections
# held would take about 120 MiB), and the other client gets at least 95 % of its calls.
# Without the cap the second keeps all 40.
#   3. through the shipped edge (edge/run_edge.sh), the server with the edge's flags
#      (edge/reco_server.flags: no cap per source, one stream per connection): 40
#      connections of 100 held streams (nghttpx's limit per connection) from
#      127.0.0.2, against a server bound of 96 MiB (2,457 connections of one stream).
#      haproxy keeps 16 of them (its cap per address) and closes 24 at once; nghttpx
#      forwards the 1,600 streams on 1,600 backend connections, within the server's
#      cap, so the other client (127.0.0.1) is served through the edge while they are
#      held, and the server's RSS stays under the bound. Without haproxy's cap all 40
#      are kept and the check of 16 fails (the server's cap still held its RSS, 57 ->
#      105 MiB, and the other client was served: one stream per connection).
# Skipped under a sanitizer (RSS); the third without nghttpx (nghttp2-proxy).
#   held_streams_test.sh RECO_SERVER RECO_LOAD [direct|edge]   (default: both)
set -uo pipefail
server=$1 load=$2 parts=${3:-both}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp
if sanitized_build "$server"; then echo "SKIP: RSS under a sanitizer is not the server's"; exit 0; fi
bound=$((64 << 20))

. "$here/attacker_status.sh"
rss() {  # the server's VmRSS in bytes; the test fails when it cannot be read
  local kib
  kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status") && [ -n "$kib" ] || fail "no VmRSS for $SERVER_PID"
  echo $((kib * 1024))
}
attack() {  # attack NAME CONNECTIONS KEPT: holds them; KEPT open, the rest closed at once, RSS within the bound
  local name=$1 count=$2 kept=$3 before after
  rm -f "$tmp/status.json"
  before=$(rss) || exit 1
  /usr/bin/python3 "$here/held_streams.py" "$SERVER_PORT" "$count" 256 30 "$tmp/status.json" >"$tmp/$name.json" &
  attacker=$!
  wait_status opened "$count" || fail "$name: the attacker did not open its connections: $(cat "$tmp/status.json")"
  wait_status closed_at_once $((count - kept)) || fail "$name: not $((count - kept)) closed at once: $(cat "$tmp/status.json")"
  wait_status streams_sent $((kept * 256)) || fail "$name: the streams did not go out: $(cat "$tmp/status.json")"
  sleep 0.5  # the server reads the last streams' headers
  after=$(rss) || exit 1
  echo "$name: $(cat "$tmp/status.json"); RSS $((before >> 20)) -> $((after >> 20)) MiB"
  [ "$(status open)" = "$kept" ] || fail "$name: $kept kept expected: $(cat "$tmp/status.json")"
  [ $((after - before)) -lt "$bound" ] || fail "$name: RSS grew by $(((after - before) >> 20)) MiB, the bound is 64 MiB"
}

if [ "$parts" != edge ]; then
# 1. Per source, at its default.
start_reco_server "$tmp/s1.out" "$server" --mode arena_pool --stream_memory_bytes "$bound" ||
  fail "reco_server did not start"
grep -q "at most 12 connections (--stream_memory_bytes" "$tmp/s1.out" || fail "no log line of the cap: $(cat "$tmp/s1.out")"
attack per_source 20 3
probe per_source
kill "$attacker"
wait "$attacker" 2>/dev/null
stop_reco_server

# 2. At the cap, from any number of addresses (here: one, no per-source limit).
start_reco_server "$tmp/s2.out" "$server" --mode arena_pool --stream_memory_bytes "$bound" \
  --max_connections_per_source 0 --handshake_timeout 2s || fail "reco_server did not start"
attack at_cap 40 12
grep -q -- "--stream_memory_bytes leaves room for (12)" "$tmp/s2.out" || fail "at the cap: no log line naming the flag"
wait_status closed_later 3 || fail "at the cap: quiet connections were not shut down: $(cat "$tmp/status.json")"
probe at_cap
kill "$attacker"
wait "$attacker" 2>/dev/null
stop_reco_server

fi
[ "$parts" = direct ] && { echo PASS; exit 0; }

# 3. Through the edge.
if ! command -v nghttpx >/dev/null; then echo "SKIP: through the edge: nghttpx is not installed"; echo PASS; exit 0; fi
bound=$((96 << 20))
start_reco_server "$tmp/s3.out" "$server" --mode arena_pool "${EDGE_SERVER_FLAGS[@]}" --stream_memory_bytes "$bound" \
  --handshake_timeout 2s || fail "reco_server did not start"
start_edge "$tmp/edge.out" "$SERVER_PORT" || fail "the edge did not start"
rm -f "$tmp/status.json"
before=$(rss) || exit 1
/usr/bin/python3 "$here/held_streams.py" "$EDGE_PORT" 40 100 30 "$tmp/status.json" >"$tmp/edge.json" &
attacker=$!
wait_status opened 40 || fail "edge: the attacker did not open its connections: $(cat "$tmp/status.json")"
wait_status closed_at_once 24 || fail "edge: not 24 closed at once: $(cat "$tmp/status.json")"
wait_status streams_sent 1600 || fail "edge: the streams did not go out: $(cat "$tmp/status.json")"
sleep 0.5  # the edge passes the last ones on
after=$(rss) || exit 1
probe edge "$EDGE_PORT"
echo "edge: $(cat "$tmp/status.json"); the server's RSS $((before >> 20)) -> $((after >> 20)) MiB"
[ "$(status open)" = 16 ] || fail "edge: 16 kept expected: $(cat "$tmp/status.json")"
[ $((after - before)) -lt "$bound" ] || fail "edge: RSS grew by $(((after - before) >> 20)) MiB, the bound is $((bound >> 20)) MiB"
kill "$attacker"
wait "$attacker" 2>/dev/null
stop_edge
stop_reco_server
echo PASS
