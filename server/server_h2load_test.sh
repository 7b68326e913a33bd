#!/usr/bin/env bash
# h2load (nghttp2-client) drives reco_server in every memory mode and arena_alias: a
# bounded run (-n 200) whose every request succeeds and whose bytes received are exactly 200
# gRPC-framed responses of the size the allocation ledger reports for the same
# request -- h2load counts any HTTP 200 as success, even a gRPC error, so the byte
# count is what proves the responses came back.
#   server_h2load_test.sh RECO_SERVER ALLOC_LEDGER
set -uo pipefail
server=$1 ledger=$2
command -v h2load >/dev/null || { echo "FAIL: h2load not installed (apt-get install nghttp2-client)" >&2; exit 1; }
. "$(dirname "$0")/../scripts/lib/reco_servers.sh"
reco_test_dir tmp

# The ledger's request: user_id "ledger-user", item_count 200, compact text, seed 1.
# Serialized by hand (field tag, value) and framed as gRPC: 0x00 + 4-byte length.
printf '\x00\x00\x00\x00\x14\x0a\x0bledger-user\x10\xc8\x01\x18\x01\x20\x01' >"$tmp/req.bin"
[ "$(stat -c %s "$tmp/req.bin")" = 25 ] || fail "request file is not 25 bytes"
bytes=$("$ledger" --items 200 --profile compact --format json --modes heap --warmup_responses 0 --cycles 1 |
        tr -d " \n" | sed -n 's/.*"serialized_bytes":\([0-9]*\).*/\1/p')
[ -n "$bytes" ] || fail "alloc_ledger printed no serialized_bytes"
requests=200
want_data=$((requests * (5 + bytes)))

for mode in heap reuse arena arena_pool arena_alias; do
  start_reco_server --stderr "$tmp/$mode.err" "$tmp/$mode.out" "$server" --mode "$mode" ||
    fail "$mode: reco_server did not start"
  timeout 60 h2load -n $requests -c 2 -m 4 -t 1 -d "$tmp/req.bin" \
    -H 'content-type: application/grpc' -H 'te: trailers' \
    "http://127.0.0.1:$SERVER_PORT/reco.v1.Recommender/Recommend" >"$tmp/h2load.out" 2>&1 ||
    fail "$mode: h2load failed: $(cat "$tmp/h2load.out")"
  grep -q "requests: $requests total, $requests started, $requests done, $requests succeeded, 0 failed, 0 errored" \
    "$tmp/h2load.out" || fail "$mode: $(grep requests: "$tmp/h2load.out")"
  data=$(sed -n 's/^traffic: .*(\([0-9]*\)) data$/\1/p' "$tmp/h2load.out")
  [ "$data" = "$want_data" ] || fail "$mode: received $data data bytes, want $want_data ($requests x (5 + $bytes))"
  stop_reco_server
  [ "$SERVER_RC" = 0 ] || fail "$mode: reco_server exited $SERVER_RC"
  grep -q "^rpcs=$requests errors=0" "$tmp/$mode.out" || fail "$mode: summary: $(cat "$tmp/$mode.out")"
  echo "ok: $mode: $(grep '^finished' "$tmp/h2load.out")"
done
echo PASS
