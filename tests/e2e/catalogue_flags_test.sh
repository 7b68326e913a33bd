#!/usr/bin/env bash
# reco_server --catalogue_items=500 --catalogue_seed=9 against reco_load, both as a
# user runs them: the server says which catalogue it built, and a bounded run (1 s,
# every reply compared byte for byte) exits 0 with every reply verified and none
# wrong -- reco_load read the catalogue from the server's stats, since the default
# catalogue's replies would all differ. 600 items asked, 500 held: each reply is the
# whole catalogue.
#   tests/e2e/catalogue_flags_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
. "$(dirname "$0")/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server --stderr "$tmp/s.err" "$tmp/s.out" "$server" --mode arena_pool \
  --catalogue_items=500 --catalogue_seed=9 || fail "reco_server did not start"
grep -q "catalogue of 2 x 500 items (seed 9)" "$tmp/s.err" || fail "no catalogue line: $(cat "$tmp/s.err")"

timeout 60 "$load" --target "catalogue=127.0.0.1:$SERVER_PORT" --duration 1s --warmup 200ms --rounds 1 \
  --concurrency 4 --connections 2 --items 600 --verify_every 1 --quiet --json "$tmp/r.json" \
  >"$tmp/l.out" 2>"$tmp/l.err" || fail "reco_load exited $?: $(cat "$tmp/l.err")"
/usr/bin/python3 "$(dirname "$0")/check_clean_report.py" "$tmp/r.json" --all-verified || fail "report: $(cat "$tmp/r.json")"
stop_reco_server
[ "$SERVER_RC" = 0 ] || fail "reco_server exited $SERVER_RC on SIGTERM"
echo PASS
