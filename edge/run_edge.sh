#!/usr/bin/env bash
# The shipped edge, both processes: haproxy (edge/haproxy.cfg: the cap per client
# address) on LISTEN, in front of nghttpx (edge/nghttpx.conf: the HTTP/2 checks gRPC
# 1.51 lacks) on 127.0.0.1, which forwards to BACKEND (nghttpx's --backend syntax).
#   run_edge.sh LISTEN BACKEND [NGHTTPX_ARG...]
#   run_edge.sh 0.0.0.0:8080 'arena_pool,50051;;proto=h2;dns'
# Environment: EDGE_CONF_DIR (default /etc/reco) holds the two files; EDGE_H2_PORT
# (default 8081) is nghttpx's port on 127.0.0.1; EDGE_MAX_CONNECTIONS_PER_SOURCE
# (default 16) is haproxy's; EDGE_TLS=1 makes nghttpx's frontend TLS (give it
# --private-key-file and --certificate-file): haproxy passes TLS through untouched.
# Runs until either process ends, then stops the other and exits with the first's
# status; SIGTERM and SIGINT stop both.
set -uo pipefail
case ${1:-} in
  --help) ;;
  -*) echo "run_edge.sh: unknown option $1 (LISTEN and BACKEND come first; --help)" >&2; exit 2 ;;
esac
if [ $# -lt 2 ] || [ "$1" = --help ]; then
  sed -n '2,12s/^# \{0,1\}//p' "$0" >&2
  [ "${1:-}" = --help ] && exit 0 || exit 2
fi
listen=$1 backend=$2
shift 2
conf=${EDGE_CONF_DIR:-/etc/reco}
h2=127.0.0.1:${EDGE_H2_PORT:-8081}
tls=";no-tls"
[ "${EDGE_TLS:-0}" = 1 ] && tls=""

nghttpx --conf="$conf/nghttpx.conf" --single-process --frontend="${h2/:/,}$tls;proxyproto" \
  --backend="$backend" "$@" &
nghttpx_pid=$!
EDGE_LISTEN=$listen EDGE_H2=$h2 haproxy -f "$conf/haproxy.cfg" -db &
haproxy_pid=$!
trap 'kill -TERM "$nghttpx_pid" "$haproxy_pid" 2>/dev/null' TERM INT
wait -n "$nghttpx_pid" "$haproxy_pid"
status=$?
kill -TERM "$nghttpx_pid" "$haproxy_pid" 2>/dev/null
wait "$nghttpx_pid" "$haproxy_pid"
exit "$status"
