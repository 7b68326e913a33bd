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
#     connections (rapid reset: GOAWAY on each, at least two connections needed).
#   h2_edge_test.sh RECO_SERVER [SECONDS]     (SECONDS per attack, default 3)
set -uo pipefail
server=$1 seconds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/scripts/lib/reco_servers.sh"
command -v nghttpx >/dev/null || fail "nghttpx is not installed (scripts/setup.sh installs nghttp2-proxy)"
reco_test_dir tmp

run_attack() {  # MODE ATTACK ARGS...
  local mode=$1 attack=$2
  shift 2
  start_reco_server "$tmp/$mode.$attack.log" "$server" --mode "$mode" --allow_stats_reset ||
    fail "$mode: reco_server did not start"
  local backend=$SERVER_PORT backend_pid=$SERVER_PID
  start_edge "$tmp/edge.$mode.$attack.log" "$backend" || fail "$mode: the edge did not start"
  /usr/bin/python3 "$here/h2_attacks.py" --port "$EDGE_PORT" --stats_port "$backend" --pid "$backend_pid" \
    --attack "$attack" --reconnect --settle 0.5 --recover 20 "$@" >"$tmp/out.json" ||
    fail "$mode $attack through the edge: h2_attacks.py: $(cat "$tmp/out.json")"
  local sanitized=0
  sanitized_build "$server" && sanitized=1
  /usr/bin/python3 - "$tmp/out.json" "$mode" "$attack" "$sanitized" "$here" <<'EOF' || fail "$mode $attack: $(cat "$tmp/out.json")"
import json, sys
sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, sys.argv[5])
from h2_verdict import recovered
d = json.load(open(sys.argv[1]))
mode, attack, sanitized = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
a, s, af, p = d["attack"], d["server"], d["after"], d["probes"]
MiB = 1 << 20
problems = recovered(d, "the backend")
if af["alive"]:
    bound = s["rss_before_bytes"] + 64 * MiB
    grown = max(s["rss_peak_sampled_bytes"], af["rss_bytes"])
    if grown > bound and not sanitized:  # ASan's quarantine keeps freed memory
        problems.append(f"backend RSS reached {grown / MiB:.0f} MiB, over its start + 64 MiB ({bound / MiB:.0f})")
probes = p["ok"] + p["timeouts"] + p["errors"]
if probes and p["ok"] < 0.8 * probes:
    problems.append(f"only {p['ok']} of {probes} probes through the edge were answered OK during the attack")
if a["connections_closed_by_server"] < 1:
    problems.append("the edge closed no attacking connection")
if attack == "rapid_reset" and (a["goaways"] < 1 or a["connections"] < 2):
    problems.append(f"rapid reset: {a['goaways']} GOAWAY(s) over {a['connections']} connection(s); "
                    "the edge should end each connection and the attacker need more than one")
if problems:
    print("FAIL: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
sent = f"{a['streams_sent']} streams" if attack == "rapid_reset" else f"{a['bytes_sent']} bytes"
print(f"ok: {mode} {attack} through the edge: {sent} over {a['connections']} connections "
      f"({a['goaways']} GOAWAY); backend RSS {s['rss_before_bytes'] / MiB:.0f} -> peak "
      f"{s['rss_peak_sampled_bytes'] / MiB:.0f} -> {af['rss_bytes'] / MiB:.0f} MiB; probes ok {p['ok']} "
      f"timeout {p['timeouts']} error {p['errors']}")
EOF
  stop_edge
  stop_reco_server
}

for mode in heap arena_pool; do
  run_attack "$mode" rapid_reset --seconds "$seconds" --max_streams 200000
  run_attack "$mode" continuation --seconds 1
  run_attack "$mode" small_continuations --seconds "$seconds" --max_bytes $((256 << 20))
  run_attack "$mode" endless_value --seconds "$seconds" --max_bytes $((256 << 20))
done
echo PASS
