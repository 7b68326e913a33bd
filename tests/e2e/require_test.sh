#!/usr/bin/env bash
# reco_load --require against two real reco_servers, heap and fragments: fragments
# answers from ready-made slices, so its QPS is many times heap's and its server CPU
# per RPC a fraction of it -- bounds far from the figures, whatever the machine.
#   - 2 short rounds with a requirement that holds and one that cannot: exit 7 after
#     writing the JSON, a PASS and a FAIL line on stdout, both in the JSON;
#   - 1 round with only the one that holds: exit 0;
#   - a malformed expression: exit 2 naming --require, before any load;
#   - `reco_load merge` of the report: a client figure is judged on the merge (exit 0),
#     a server figure, which merge does not carry, is "not measured" (exit 7).
#   tests/e2e/require_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
. "$(dirname "$0")/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server "$tmp/heap.out" "$server" --mode heap || fail "heap reco_server did not start"
heap=$SERVER_PORT
start_reco_server "$tmp/fragments.out" "$server" --mode fragments || fail "fragments reco_server did not start"
fragments=$SERVER_PORT
run=(--target "heap=127.0.0.1:$heap" --target "fragments=127.0.0.1:$fragments" --warmup 200ms --duration 1s --quiet)
holds='fragments/heap server_cpu_us_per_rpc <= 0.9'
fails='fragments/heap qps <= 0.5'

expect_run 7 "a --require was not met" "$tmp" "$load" "${run[@]}" --rounds 2 --json "$tmp/r.json" \
  --require "$holds" --require "$fails"
grep -qE "^require $holds: x[0-9.]+ \[[0-9.]+-[0-9.]+\] PASS$" "$tmp/l.out" || fail "no PASS line: $(cat "$tmp/l.out")"
grep -qE "^require $fails: x[0-9.]+ \[[0-9.]+-[0-9.]+\] FAIL \(worst round [12]: x[0-9.]+\)$" "$tmp/l.out" ||
  fail "no FAIL line: $(cat "$tmp/l.out")"
/usr/bin/python3 - "$tmp/r.json" "$holds" "$fails" <<'EOF' || fail "the JSON's requirements are wrong"
import json, sys
report, holds, fails = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
got = [(q["expression"], q["passed"], q["rounds"]) for q in report["requirements"]]
assert got == [(holds, True, 2), (fails, False, 2)], got
assert all(q["min"] <= q["median"] <= q["max"] for q in report["requirements"]), report["requirements"]
EOF
echo "ok: a requirement met and one not: exit 7, a PASS and a FAIL line, both in the JSON"

expect_run 0 "" "$tmp" "$load" "${run[@]}" --rounds 1 --require "$holds"
grep -q "^require $holds: x[0-9.]* PASS$" "$tmp/l.out" || fail "no PASS line: $(cat "$tmp/l.out")"
echo "ok: every requirement met: exit 0"

expect_run 2 "--require 'fragments/heap qps = 2': unknown operator '='" "$tmp" "$load" "${run[@]}" \
  --require 'fragments/heap qps = 2'
echo "ok: a malformed requirement exits 2 before any load"

expect_run 0 "" "$tmp" "$load" merge "$tmp/r.json" --require 'fragments/heap qps >= 2'
grep -q "^require fragments/heap qps >= 2: x[0-9.]* \[.*\] PASS$" "$tmp/l.out" || fail "merge: $(cat "$tmp/l.out")"
expect_run 7 "a --require was not met" "$tmp" "$load" merge "$tmp/r.json" --require "$holds"
grep -q "^require $holds: n/a FAIL (not measured)$" "$tmp/l.out" || fail "merge: $(cat "$tmp/l.out")"
echo "ok: merge judges the figures it has, fails those it does not carry"
