#!/usr/bin/env bash
# reco_load's bound on what a server can make it buffer (--max_receive_message_bytes,
# 64 MiB by default; it took any length a server claimed before). Against reco_server's
# 10,000-item replies (compact text, a few MB):
#   - with the limit at 1,000,000 bytes the probe fails before any load, exit 3,
#     with gRPC's RESOURCE_EXHAUSTED and a message naming the flag;
#   - with the default, the same run is served.
#   tests/e2e/receive_limit_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
. "$(dirname "$0")/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server "$tmp/s.out" "$server" --mode arena_pool || fail "reco_server did not start"
run() {  # run ARGS...: reco_load's short run of 10,000-item replies; its exit status
  timeout 60 "$load" --target "big=127.0.0.1:$SERVER_PORT" --items 10000 --profile compact --duration 300ms \
    --warmup 0s --rounds 1 --connections 1 --concurrency 1 --quiet "$@" >"$tmp/l.out" 2>"$tmp/l.err"
}
run --max_receive_message_bytes 1000000
rc=$?
[ "$rc" = 3 ] || fail "with a 1,000,000-byte limit reco_load exited $rc, want 3: $(cat "$tmp/l.err")"
grep -q "RESOURCE_EXHAUSTED\|larger than max" "$tmp/l.err" || fail "no RESOURCE_EXHAUSTED: $(cat "$tmp/l.err")"
grep -q -- "--max_receive_message_bytes" "$tmp/l.err" || fail "the message does not name the flag: $(cat "$tmp/l.err")"
echo "limit 1000000: exit 3: $(grep -m1 -- --max_receive_message_bytes "$tmp/l.err")"
run || fail "with the default limit: exit $?: $(cat "$tmp/l.err")"
echo "default limit: served"
stop_reco_server
echo PASS
