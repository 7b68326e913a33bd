#!/usr/bin/env bash
# The HTTP/2 attacks of docs/reliability.md ("The HTTP/2 stack"), long variant: for
# every memory mode and every attack of tests/hostile/h2_attacks.py (rapid_reset,
# unacked_streams, continuation, small_continuations, endless_value), a fresh
# reco_server on 127.0.0.1:0, the attack for
# SECONDS (default 10), then one table row of what the server paid. Prints the
# markdown table on stdout; each run's JSON goes to OUT_DIR (default a temporary one).
#   scripts/http2_attacks.sh [SECONDS [OUT_DIR]]
# Env: RECO_SERVER (default build/server/reco_server), MODES, ATTACKS, SERVER_FLAGS
# (extra reco_server flags, e.g. "--max_concurrent_streams 1"), SETTLE (seconds after
# the attack before the "after" figures, default 2), MAX_STREAMS (rapid_reset's and
# unacked_streams' cap, default 200000: each reset stream can hold ~15-30 KiB until
# the server catches up, each held unacknowledged one ~12 KiB),
# MAX_BYTES (the header floods' cap, default 1 GiB: 1.51 may buffer all of it),
# EDGE=1 (each server behind the shipped edge, edge/run_edge.sh: the attack and the
# probes go through it, reconnecting each time it closes a connection; the figures
# are still the server's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/script_flags.sh"
parse_positionals "$0" "$@"
seconds=${1:-10}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
server=${RECO_SERVER:-$root/build/server/reco_server}
modes=${MODES:-heap reuse arena arena_pool fragments}
attacks=${ATTACKS:-rapid_reset unacked_streams continuation small_continuations endless_value}
[ -x "$server" ] || { echo "no $server: run scripts/build.sh first" >&2; exit 1; }
. "$root/scripts/lib/reco_servers.sh"
trap 'stop_reco_servers || true' EXIT

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; gRPC $(dpkg-query -W -f '${Version}' libgrpc++1.51 2>/dev/null || echo '?'); ${seconds} s per attack; flags: ${SERVER_FLAGS:-none}$([ "${EDGE:-0}" = 1 ] && echo "; through the edge (nghttpx $(dpkg-query -W -f '${Version}' nghttp2-proxy 2>/dev/null || echo '?'), haproxy $(dpkg-query -W -f '${Version}' haproxy 2>/dev/null || echo '?'))")"
echo
for attack in $attacks; do
  for mode in $modes; do
    edge_flags=()  # through the edge, the server runs with the edge's flags (edge/reco_server.flags)
    [ "${EDGE:-0}" = 1 ] && edge_flags=("${EDGE_SERVER_FLAGS[@]}")
    # shellcheck disable=SC2086  # SERVER_FLAGS is a list of words
    start_reco_server "$out/$mode.$attack.log" "$server" --mode "$mode" --allow_stats_reset "${edge_flags[@]}" \
      ${SERVER_FLAGS:-}
    through=(--port "$SERVER_PORT")
    if [ "${EDGE:-0}" = 1 ]; then
      start_edge "$out/$mode.$attack.edge.log" "$SERVER_PORT"
      through=(--port "$EDGE_PORT" --stats_port "$SERVER_PORT" --reconnect)
    fi
    /usr/bin/python3 "$root/tests/hostile/h2_attacks.py" "${through[@]}" --pid "$SERVER_PID" \
      --attack "$attack" --seconds "$seconds" --settle "${SETTLE:-2}" \
      --max_streams "${MAX_STREAMS:-200000}" --max_bytes "${MAX_BYTES:-1073741824}" >"$out/$mode.$attack.json" ||
      echo "h2_attacks.py failed for $mode $attack: $(cat "$out/$mode.$attack.json")" >&2
    if [ "${EDGE:-0}" = 1 ]; then stop_edge; fi
    # A server still working through reset streams may not exit on SIGTERM in 15 s:
    # that is a finding (it is then killed), not a reason to stop the table.
    if stop_reco_servers 2>/dev/null; then echo "exit $SERVER_RC" >"$out/$mode.$attack.stop"
    else echo "killed: no exit 15 s after SIGTERM" >"$out/$mode.$attack.stop"; fi
  done
done

# shellcheck disable=SC2086  # ATTACKS and MODES are lists, split on spaces
/usr/bin/python3 "$root/scripts/http2_attacks_table.py" "$out" $attacks -- $modes
echo
echo "JSON per run: $out"
