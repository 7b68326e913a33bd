#!/usr/bin/env bash
# What the edge (edge/run_edge.sh: Debian's haproxy, then nghttpx) costs a client: one reco_server
# in MODE, driven by reco_load in interleaved paired rounds (A B C A B C ...) directly
# (`direct`), through nghttpx alone with the edge's nghttpx.conf (`nghttpx`: what
# haproxy's hop adds is the difference) and through the whole edge (`edge`) -- the same
# server, so only the path differs. The proxies run on the same machine, so their CPU
# is part of the cost. Prints reco_load's table (ratios to `direct`: median of the
# per-round ratios [min-max]).
#
#   scripts/edge_cost.sh [BUILD_DIR]     (default: build)
#   env: MODE=arena_pool ROUNDS=7 DURATION=5s ITEMS=200 JSON=(none)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
mode=${MODE:-arena_pool} rounds=${ROUNDS:-7} duration=${DURATION:-5s} items=${ITEMS:-200}
require_reco_binaries "$build"
require_positive_integers rounds
command -v nghttpx >/dev/null && command -v haproxy >/dev/null ||
  { echo "nghttpx or haproxy is missing: scripts/setup.sh installs nghttp2-proxy and haproxy" >&2; exit 1; }
measurement_work_dir work

echo "machine: $(machine_cpus);" \
     "nghttpx $(dpkg-query -W -f '${Version}' nghttp2-proxy 2>/dev/null || echo '?')," \
     "haproxy $(dpkg-query -W -f '${Version}' haproxy 2>/dev/null || echo '?')"
start_reco_server "$work/server.log" "$build/server/reco_server" --mode "$mode"
server=$SERVER_PORT
start_edge "$work/edge.log" "$server"
full_edge_port=$EDGE_PORT
# nghttpx alone, with the edge's configuration: what haproxy's hop adds is the difference.
nghttpx_port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nghttpx --conf=edge/nghttpx.conf --single-process --frontend="127.0.0.1,$nghttpx_port;no-tls" \
  --backend="127.0.0.1,$server;;proto=h2" >"$work/nghttpx.log" 2>&1 &
RECO_SERVER_PIDS+=("$!")
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$nghttpx_port") 2>/dev/null && break; sleep 0.1; done
"$build/client/reco_load" --target "direct=127.0.0.1:$server" --target "nghttpx=127.0.0.1:$nghttpx_port" \
  --target "edge=127.0.0.1:$full_edge_port" \
  --rounds "$rounds" --duration "$duration" --items "$items" ${JSON:+--json "$JSON"}
