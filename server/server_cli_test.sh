#!/usr/bin/env bash
# reco_server and reco_probe as a user meets them: bad flags name the flag and exit
# 2, a busy port names the port, SIGTERM shuts down cleanly with a summary, and the
# probe tells SERVING from not.
#   server_cli_test.sh RECO_SERVER RECO_PROBE
set -uo pipefail
server=$1 probe=$2
. "$(dirname "$0")/../scripts/lib/reco_servers.sh"
reco_test_dir tmp

# expect_bad_flag EXPECTED_RC TEXT FLAGS...: exits with EXPECTED_RC and says TEXT.
# `timeout`: a flag wrongly accepted would leave the server listening (exit 124).
expect_bad_flag() {
  local want_rc=$1 text=$2
  shift 2
  timeout 30 "$server" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
  local rc=$?
  [ "$rc" = "$want_rc" ] || fail "reco_server $* exited $rc, want $want_rc"
  grep -q -- "$text" "$tmp/bad.err" || fail "reco_server $*: stderr lacks '$text': $(cat "$tmp/bad.err")"
}
expect_bad_flag 2 "--mode=bogus is not one of heap, reuse, arena, arena_pool" --mode=bogus --listen=127.0.0.1:0
expect_bad_flag 2 "--api=grpc is not one of callback, async" --api=grpc --listen=127.0.0.1:0
expect_bad_flag 2 "--async_threads=0 is out of range \\[1, 1024\\]" --api=async --async_threads=0 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_idle=-1 is out of range" --max_idle=-1 --listen=127.0.0.1:0
expect_bad_flag 2 "--trim_max_wait_intervals=0 is out of range \\[1, 1024\\]" --trim_max_wait_intervals=0 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_concurrent_streams=0 is out of range" --max_concurrent_streams=0 --listen=127.0.0.1:0
expect_bad_flag 2 "--stream_memory_bytes=1 is out of range \\[20480, " --stream_memory_bytes=1 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_connections_per_source=-2 is out of range \\[-1, " --max_connections_per_source=-2 \
  --listen=127.0.0.1:0
expect_bad_flag 2 "--max_sync_threads=3 is out of range \\[4, 4096\\]" --max_sync_threads=3 --listen=127.0.0.1:0
expect_bad_flag 2 "--listen=nonsense is not HOST:PORT" --listen=nonsense
expect_bad_flag 2 "--metrics_listen=9464 is not HOST:PORT" --metrics_listen=9464 --listen=127.0.0.1:0
expect_bad_flag 2 "--metrics_listen=\[::1\]:0: the metrics endpoint has no IPv6" '--metrics_listen=[::1]:0' \
  --listen=127.0.0.1:0
expect_bad_flag 2 "--metrics_listen=127.0.0.1:70000: port '70000' is not in 1-65535" \
  --metrics_listen=127.0.0.1:70000 --listen=127.0.0.1:0
expect_bad_flag 2 "unexpected argument 'extra'" --listen=127.0.0.1:0 extra
# Ports: 1-65535, or 0 for a free one (gRPC took 127.0.0.1:99999 and listened elsewhere).
expect_bad_flag 2 "--listen=127.0.0.1:99999: port '99999' is not in 1-65535" --listen=127.0.0.1:99999
expect_bad_flag 2 "--listen=127.0.0.1:-1: port '-1' is not in 1-65535" --listen=127.0.0.1:-1
expect_bad_flag 2 "--listen=127.0.0.1:: port '' is not in 1-65535" --listen=127.0.0.1:
# Sizes and counts: too small to serve a call, or past a sensible cap.
expect_bad_flag 2 "--resource_quota_bytes=1 is too small to serve a call" --resource_quota_bytes=1 --listen=127.0.0.1:0
expect_bad_flag 2 "--initial_block_bytes=4294967296 is out of range \\[1024, 67108864\\]" \
  --initial_block_bytes=4294967296 --listen=127.0.0.1:0
expect_bad_flag 2 "--initial_block_bytes=1 is out of range" --initial_block_bytes=1 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_block_bytes=-1 is out of range \\[0, 1073741824\\]" --max_block_bytes=-1 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_pool_bytes=9663676416 is out of range" --max_pool_bytes=9663676416 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_idle x --initial_block_bytes = 17179869184 bytes is over 8 GiB" \
  --max_idle=1024 --initial_block_bytes=16777216 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_receive_message_bytes=0 is out of range" --max_receive_message_bytes=0 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_receive_message_bytes=2147483648 is out of range" --max_receive_message_bytes=2147483648 \
  --listen=127.0.0.1:0
# The catalogue: at least one item, at most 1,000,000 per profile (~2 GiB).
expect_bad_flag 2 "--catalogue_items=0 is out of range \\[1, 1000000\\]" --catalogue_items=0 --listen=127.0.0.1:0
expect_bad_flag 2 "--catalogue_items=2000000 is out of range \\[1, 1000000\\]" --catalogue_items=2000000 \
  --listen=127.0.0.1:0
# Connection limits and the stop.
expect_bad_flag 2 "--max_connection_idle=0 is out of range" --max_connection_idle=0s --listen=127.0.0.1:0
expect_bad_flag 2 "--handshake_timeout=48h is out of range" --handshake_timeout=48h --listen=127.0.0.1:0
expect_bad_flag 2 "--max_connection_budget_share: 0 is not in (0, 1\]" --max_connection_budget_share=0 --listen=127.0.0.1:0
expect_bad_flag 2 "--max_connection_budget_share: 1.5 is not in (0, 1\]" --max_connection_budget_share=1.5 \
  --listen=127.0.0.1:0
expect_bad_flag 2 "--max_reply_hold: 1ms is not 0 (never cancel) or between 100ms and 1h" --max_reply_hold=1ms \
  --listen=127.0.0.1:0
expect_bad_flag 2 "--max_reply_hold: -1s is not 0" --max_reply_hold=-1s --listen=127.0.0.1:0
expect_bad_flag 2 "--keepalive_max_ping_strikes=-1 is out of range" --keepalive_max_ping_strikes=-1 --listen=127.0.0.1:0
expect_bad_flag 2 "--shutdown_hard_deadline=5s must be longer than --shutdown_drain_delay + --shutdown_deadline (6s)" \
  --shutdown_hard_deadline=5s --listen=127.0.0.1:0
expect_bad_flag 2 "--shutdown_drain_delay=-1s is out of range" --shutdown_drain_delay=-1s --listen=127.0.0.1:0
expect_bad_flag 2 "--trim_interval=1ns is out of range: 0 (never) or \[10ms, 24h\]" --trim_interval=1ns \
  --listen=127.0.0.1:0
expect_bad_flag 2 "--shutdown_deadline=2h is out of range" --shutdown_deadline=2h --listen=127.0.0.1:0
# A value of the wrong type, an unknown flag, a missing value: absl's message, exit 2
# like every bad flag (cli/flag_parse.h).
expect_bad_flag 2 "Illegal value 'lots' specified for flag 'max_idle'" --max_idle=lots --listen=127.0.0.1:0
expect_bad_flag 2 "Unknown command line flag 'bogus'" --bogus --listen=127.0.0.1:0
expect_bad_flag 2 "Missing the value for the flag 'listen'" --mode=heap --listen
echo "ok: bad flags"

"$server" --help >"$tmp/help.out" 2>&1
for flag in --listen --mode --api --async_threads --max_idle --initial_block_bytes --max_receive_message_bytes --max_concurrent_streams \
            --resource_quota_bytes --measure --shutdown_deadline --shutdown_drain_delay --shutdown_hard_deadline \
            --max_connection_idle --max_connection_age --max_connection_age_grace --handshake_timeout \
            --stream_memory_bytes --max_connections_per_source \
            --keepalive_time --keepalive_timeout --keepalive_min_ping_interval --keepalive_max_ping_strikes \
            --accept_compressed_requests --catalogue_items --catalogue_seed; do
  grep -q -- "$flag " "$tmp/help.out" || fail "--help does not describe $flag"
done
"$probe" --help >"$tmp/probe_help.out" 2>&1
grep -q -- "--target " "$tmp/probe_help.out" || fail "reco_probe --help does not describe --target"
echo "ok: --help"

# reco_probe's bad flags exit 2 naming the flag, before any call: gRPC dialled
# 127.0.0.1:99999 as port 34463, :-1, :+80 and :10x as other ports, and an empty
# --target filled stderr with its DNS errors -- each exit 1, as if the server were down.
expect_probe_bad_flag() {  # TEXT ARGS...
  local text=$1
  shift
  timeout 30 "$probe" "$@" >"$tmp/probe_bad.out" 2>"$tmp/probe_bad.err"
  local rc=$?
  [ "$rc" = 2 ] || fail "reco_probe $* exited $rc, want 2: $(cat "$tmp/probe_bad.err")"
  grep -q -- "$text" "$tmp/probe_bad.err" || fail "reco_probe $*: stderr lacks '$text': $(cat "$tmp/probe_bad.err")"
  [ "$(wc -l <"$tmp/probe_bad.err")" = 1 ] || fail "reco_probe $*: more than its one line: $(cat "$tmp/probe_bad.err")"
}
for port in 99999 -1 abc 10x +80 " 80" 0 ""; do
  expect_probe_bad_flag "--target=127.0.0.1:$port: port '$port' is not in 1-65535" --target="127.0.0.1:$port"
done
expect_probe_bad_flag "--target= is not HOST:PORT" --target=
expect_probe_bad_flag "--target=127.0.0.1 is not HOST:PORT" --target=127.0.0.1
expect_probe_bad_flag "--deadline must be positive and at most 1h, got inf" --deadline=inf
echo "ok: reco_probe's bad flags"

start_reco_server --stderr "$tmp/a.err" "$tmp/a.out" "$server" --mode heap || fail "reco_server did not start"
busy_port=$SERVER_PORT
"$server" --listen "127.0.0.1:$busy_port" >"$tmp/busy.out" 2>"$tmp/busy.err"
rc=$?
[ "$rc" != 0 ] || fail "a second server on busy port $busy_port exited 0"
grep -q "cannot listen on 127.0.0.1:$busy_port" "$tmp/busy.err" || fail "busy port message: $(cat "$tmp/busy.err")"
echo "ok: busy port $busy_port refused (exit $rc)"
# The metrics port taken by the running server's gRPC port: exit 1, named, no server left.
"$server" --listen 127.0.0.1:0 --metrics_listen "127.0.0.1:$busy_port" >"$tmp/busy.out" 2>"$tmp/busy.err"
rc=$?
[ "$rc" = 1 ] || fail "a metrics port that is in use: exit $rc, want 1"
grep -q "metrics_listen=127.0.0.1:$busy_port: cannot serve metrics" "$tmp/busy.err" ||
  fail "busy metrics port message: $(cat "$tmp/busy.err")"
echo "ok: busy metrics port $busy_port refused (exit 1)"

"$probe" --target "127.0.0.1:$busy_port" >"$tmp/probe.out" 2>&1 || fail "probe of a serving server: $(cat "$tmp/probe.out")"
grep -q "is SERVING" "$tmp/probe.out" || fail "probe output: $(cat "$tmp/probe.out")"
"$probe" --target "127.0.0.1:$busy_port" --service no.such.Service >"$tmp/probe.out" 2>&1 && fail "probe of an unknown service exited 0"
stop_reco_server
[ "$SERVER_RC" = 0 ] || fail "reco_server exited $SERVER_RC on SIGTERM"
grep -q "reco_server: stopped on signal 15" "$tmp/a.out" || fail "no stop line: $(cat "$tmp/a.out")"
grep -q "^reco_server summary: mode=heap" "$tmp/a.out" || fail "no summary: $(cat "$tmp/a.out")"
"$probe" --target "127.0.0.1:$busy_port" --deadline 500ms >"$tmp/probe.out" 2>&1 && fail "probe of a stopped server exited 0"
grep -q "reco_probe: health check of 127.0.0.1:$busy_port failed" "$tmp/probe.out" || fail "probe message: $(cat "$tmp/probe.out")"
echo "ok: probe, SIGTERM, summary"

# A budget past the machine's memory starts, with a warning.
start_reco_server --stderr "$tmp/c.err" "$tmp/c.out" "$server" --mode heap --inflight_budget_bytes=1099511627776 \
  || fail "reco_server with a 1 TiB budget did not start"
stop_reco_server
grep -q "warning: --inflight_budget_bytes=1099511627776 is more than the memory" "$tmp/c.err" \
  || fail "no warning for a budget over the machine's memory: $(cat "$tmp/c.err")"
echo "ok: budget over memory warned"

# --api async: the listening line says so; the probe sees it SERVING; SIGTERM stops the
# serving threads and exits 0 with the summary.
start_reco_server --stderr "$tmp/d.err" "$tmp/d.out" "$server" --mode arena_pool --api async --async_threads 2 \
  || fail "reco_server --api async did not start"
grep -q "mode=arena_pool api=async threads=2" "$tmp/d.out" || fail "async listening line: $(cat "$tmp/d.out")"
"$probe" --target "127.0.0.1:$SERVER_PORT" >"$tmp/probe.out" 2>&1 || fail "probe of the async server: $(cat "$tmp/probe.out")"
stop_reco_server
[ "$SERVER_RC" = 0 ] || fail "reco_server --api async exited $SERVER_RC on SIGTERM"
grep -q "^reco_server summary: mode=arena_pool" "$tmp/d.out" || fail "async: no summary: $(cat "$tmp/d.out")"
echo "ok: --api async starts, probes SERVING, stops on SIGTERM"

# A glibc tuned by GLIBC_TUNABLES at start is named so in the stats (and so in reports).
# Not under a sanitizer: its runtime is the malloc then ("asan", "tsan").
if ! sanitized_build "$server"; then
  GLIBC_TUNABLES=glibc.malloc.mxfast=0 start_reco_server --stderr "$tmp/t.err" "$tmp/t.out" "$server" --mode heap \
    || fail "reco_server with GLIBC_TUNABLES did not start"
  stop_reco_server
  grep -q "^reco_server summary: mode=heap malloc=glibc(glibc.malloc.mxfast=0) " "$tmp/t.out" ||
    fail "GLIBC_TUNABLES not in the malloc name: $(head -1 "$tmp/t.out")"
  echo "ok: GLIBC_TUNABLES named in the malloc"
fi

# SIGINT behaves like SIGTERM.
start_reco_server --stderr "$tmp/b.err" "$tmp/b.out" "$server" --mode arena_pool || fail "reco_server did not start"
kill -INT "$SERVER_PID"
wait "$SERVER_PID"
rc=$?
[ "$rc" = 0 ] || fail "reco_server exited $rc on SIGINT"
grep -q "stopped on signal 2" "$tmp/b.out" || fail "SIGINT: $(cat "$tmp/b.out")"
echo "ok: SIGINT"
echo PASS
