#!/usr/bin/env bash
# The HTTP/2 attacks of h2_attacks.py through the shipped edge (edge/nghttpx.conf,
# Debian's nghttpx) in front of a real reco_server, as an attacker would send them:
# each time the edge closes a connection, a new one (--reconnect). Asserts, with no
# timing (docs/reliability.md, "The edge", has the figures; scripts/http2_attacks.sh
# EDGE=1 the long variant):
#   - the backend is alive, and within 20 s of the attack a call through the edge
#     gets the pre-attack reply byte for byte;
#   - the backend's RSS, sampled every 50 ms during the attack and read after it,
#     stays within 64 MiB of its start (direct, rapid reset grew it by 1.5 GB in 10 s);
#   - the probes through the edge during the attack: no wrong reply, at least 80 % OK;
#   - the edge, not the backend, ended the attacks: it closed the attacking
#     connections (rapid reset: GOAWAY on each, at least two connections needed), or,
#     against streams opened without acknowledging its SETTINGS, refused every stream
#     past 256 (nghttp2 counts its limit before the acknowledgement);
#   - the edge itself (one process) peaked under 128 MiB RSS.
#   h2_edge_test.sh RECO_SERVER [SECONDS]     (SECONDS per attack, default 2)
set -uo pipefail
server=$1 seconds=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/scripts/lib/reco_servers.sh"
command -v nghttpx >/dev/null || fail "nghttpx is not installed (scripts/setup.sh installs nghttp2-proxy)"
reco_test_dir tmp

run_attack() {  # MODE ATTACK ARGS...
  local mode=$1 attack=$2
  shift 2
  start_reco_server "$tmp/$mode.$attack.log" "$server" --mode "$mode" --allow_stats_reset "${EDGE_SERVER_FLAGS[@]}" ||
    fail "$mode: reco_server did not start"
  local backend=$SERVER_PORT backend_pid=$SERVER_PID
  start_edge "$tmp/edge.$mode.$attack.log" "$backend" || fail "$mode: the edge did not start"
  /usr/bin/python3 "$here/h2_attacks.py" --port "$EDGE_PORT" --stats_port "$backend" --pid "$backend_pid" \
    --attack "$attack" --reconnect --settle 0.5 --recover 20 "$@" >"$tmp/out.json" ||
    fail "$mode $attack through the edge: h2_attacks.py: $(cat "$tmp/out.json")"
  local sanitized=0
  sanitized_build "$server" && sanitized=1
  /usr/bin/python3 "$here/h2_verdict.py" edge "$tmp/out.json" "$mode" "$attack" "$sanitized" "$EDGE_PROCESSES" ||
    fail "$mode $attack: $(cat "$tmp/out.json")"
  stop_edge
  stop_reco_server
}

# Rapid Reset's calls reach the handler: both kinds of reply memory are attacked. The
# other attacks start no call (headers never completed, or streams whose message never
# comes), whatever the mode: one mode.
for mode in heap arena_pool; do
  run_attack "$mode" rapid_reset --seconds "$seconds" --max_streams 200000
done
run_attack arena_pool unacked_streams --seconds "$seconds" --max_streams 20000
run_attack arena_pool continuation --seconds 1
run_attack arena_pool small_continuations --seconds "$seconds" --max_bytes $((256 << 20))
run_attack arena_pool endless_value --seconds "$seconds" --max_bytes $((256 << 20))
echo PASS
