#!/usr/bin/env bash
# What reco_server holds for one stream whose message never comes (kStreamCostBytes,
# server/connection_limits.h, is the larger figure rounded up): CONNECTIONS connections
# of STREAMS Recommend HEADERS without a message (tests/hostile/held_streams.py), once
# with a call's usual headers and once with a header of METADATA bytes more on every
# stream; prints the server's RSS before and while they are held, and the growth per
# stream and per connection (STREAMS=1, as behind the edge, measures a connection's own
# cost: kConnectionCostBytes). The server runs with --max_concurrent_streams STREAMS
# and no connection cap in the way (per-source limit off, --stream_memory_bytes 64 GiB).
#
#   scripts/held_stream_cost.sh [BUILD_DIR]      (default: build)
#   env: CONNECTIONS=20 STREAMS=256 METADATA=7000 HOLD=4
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
connections=${CONNECTIONS:-20} per=${STREAMS:-256} metadata=${METADATA:-7000} hold=${HOLD:-4}
require_reco_binaries "$build"
require_positive_integers connections per metadata hold
measurement_work_dir work
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status"; }
echo "held_stream_cost: $(lscpu | sed -n 's/^Model name: *//p' | head -1); $connections connections x $per streams"
for pad in 0 "$metadata"; do
  start_reco_server "$work/s.log" "$build/server/reco_server" --mode arena_pool --max_connections_per_source 0 \
    --max_concurrent_streams "$per" --stream_memory_bytes $((64 << 30)) || exit 1
  before=$(rss_kib)
  HELD_STREAMS_METADATA=$pad RAW_HTTP2_SOURCE=127.0.0.1 /usr/bin/python3 tests/hostile/held_streams.py \
    "$SERVER_PORT" "$connections" "$per" "$hold" "$work/status.json" >"$work/held.json" &
  holder=$!
  for _ in $(seq 200); do
    [ "$(/usr/bin/python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1]))["streams_sent"])
except (OSError, ValueError): print(0)' "$work/status.json")" -ge $((connections * per)) ] && break
    sleep 0.05
  done
  sleep 1  # the server reads the last headers
  during=$(rss_kib)
  wait "$holder"
  stop_reco_server
  streams=$((connections * per)) grown=$(((during - before) * 10))
  echo "extra header of $pad bytes: RSS $((before / 1024)) -> $((during / 1024)) MiB while $streams streams were held:" \
    "$((grown / streams / 10)).$((grown / streams % 10)) KiB a stream," \
    "$((grown / connections / 10)).$((grown / connections % 10)) KiB a connection"
done
