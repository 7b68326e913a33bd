#!/usr/bin/env bash
# What the edge (edge/run_edge.sh: Debian's haproxy, then nghttpx) costs a client: a
# reco_server in MODE driven by reco_load in interleaved paired rounds (A B C A B C ...)
# directly (`direct`), and one in MODE with the edge's flags (edge/reco_server.flags)
# through nghttpx alone with the edge's nghttpx.conf (`nghttpx`: what haproxy's hop
# adds is the difference) and through the whole edge (`edge`): each server as it is
# shipped for its path. The proxies run on the same machine, so their CPU is part of
# the cost. PATHS picks the targets and their order, the first the baseline of every
# ratio; `edge_shared` is the whole edge in front of a server with the edge's flags but
# --max_concurrent_streams 256, so that `PATHS="edge_shared edge"` measures what one
# stream per backend connection costs. Prints reco_load's table (ratios to the first:
# median of the per-round ratios [min-max]).
#
#   scripts/edge_cost.sh [BUILD_DIR]     (default: build)
#   env: MODE=arena_pool ROUNDS=7 DURATION=5s ITEMS=200 JSON=(none)
#        PATHS="direct nghttpx edge" (any of direct, nghttpx, edge, edge_shared)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
mode=${MODE:-arena_pool} rounds=${ROUNDS:-7} duration=${DURATION:-5s} items=${ITEMS:-200}
paths=${PATHS:-direct nghttpx edge}
require_reco_binaries "$build"
require_positive_integers rounds
for path in $paths; do
  case $path in
    direct | nghttpx | edge | edge_shared) ;;
    *) echo "edge_cost.sh: PATHS: unknown path '$path' (direct, nghttpx, edge, edge_shared)" >&2; exit 2 ;;
  esac
done
command -v nghttpx >/dev/null && command -v haproxy >/dev/null ||
  { echo "nghttpx or haproxy is missing: scripts/setup.sh installs nghttp2-proxy and haproxy" >&2; exit 1; }
measurement_work_dir work

echo "machine: $(machine_cpus);" \
     "nghttpx $(dpkg-query -W -f '${Version}' nghttp2-proxy 2>/dev/null || echo '?')," \
     "haproxy $(dpkg-query -W -f '${Version}' haproxy 2>/dev/null || echo '?')"
# The server behind the edge, started once for the paths that need it.
edge_server=""
behind_edge() {
  [ -n "$edge_server" ] && return 0
  start_reco_server "$work/server.log" "$build/server/reco_server" --mode "$mode" "${EDGE_SERVER_FLAGS[@]}"
  edge_server=$SERVER_PORT
}
targets=()
for path in $paths; do
  case $path in
    direct)
      start_reco_server "$work/direct.log" "$build/server/reco_server" --mode "$mode"
      targets+=(--target "direct=127.0.0.1:$SERVER_PORT") ;;
    nghttpx)  # nghttpx alone, with the edge's configuration: what haproxy's hop adds is the difference
      behind_edge
      port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
      nghttpx --conf=edge/nghttpx.conf --single-process --frontend="127.0.0.1,$port;no-tls" \
        --backend="127.0.0.1,$edge_server;;proto=h2" >"$work/nghttpx.log" 2>&1 &
      RECO_SERVER_PIDS+=("$!")
      for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
      targets+=(--target "nghttpx=127.0.0.1:$port") ;;
    edge)
      behind_edge
      start_edge "$work/edge.log" "$edge_server"
      targets+=(--target "edge=127.0.0.1:$EDGE_PORT") ;;
    edge_shared)
      start_reco_server "$work/shared.log" "$build/server/reco_server" --mode "$mode" "${EDGE_SERVER_FLAGS[@]}" \
        --max_concurrent_streams 256
      start_edge "$work/edge_shared.log" "$SERVER_PORT"
      targets+=(--target "edge_shared=127.0.0.1:$EDGE_PORT") ;;
  esac
done
"$build/client/reco_load" "${targets[@]}" \
  --rounds "$rounds" --duration "$duration" --items "$items" ${JSON:+--json "$JSON"}
