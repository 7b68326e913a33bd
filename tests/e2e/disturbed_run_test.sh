#!/usr/bin/env bash
# A reco_load run on a machine kept busy by other processes (one busy loop per CPU):
# every measured round is disturbed (client/noise_guard.h), so
#   - with --fail_on_disturbed it exits 6, after writing its report, the summary line
#     on stderr;
#   - without it exits 0 and ends with the summary line "all 2 measured rounds were
#     disturbed (...)".
# The quiet case (no line, exit 0) is client_unit_tests' NoiseSummary: a quiet machine
# cannot be promised to a test.
#   tests/e2e/disturbed_run_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
. "$(dirname "$0")/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server --stderr "$tmp/s.err" "$tmp/s.out" "$server" --mode heap || fail "reco_server did not start"
# Bounded by timeout whatever happens to this script (their output is not the
# test's, so ctest does not wait for them); stopped by their pids when it ends.
spinners=()
for _ in $(seq "$(nproc)"); do
  timeout 20 sh -c 'while :; do :; done' >/dev/null 2>&1 &
  spinners+=($!)
done
stop_spinners() {
  kill "${spinners[@]}" 2>/dev/null
  wait "${spinners[@]}" 2>/dev/null
}
die() {
  stop_spinners
  fail "$@"
}
run=(--target "heap=127.0.0.1:$SERVER_PORT" --rounds 2 --warmup 100ms --duration 500ms --concurrency 2
     --connections 1 --items 20 --quiet)
( expect_run 6 "--fail_on_disturbed" "$tmp" "$load" "${run[@]}" --fail_on_disturbed --json "$tmp/r.json" ) || die "above"
grep -q "reco_load: all 2 measured rounds were disturbed (other processes used [0-9-]*% of the CPU)" "$tmp/l.err" ||
  die "no summary line: $(cat "$tmp/l.err")"
/usr/bin/python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["targets"][0]
sys.exit(t["disturbed_rounds"] != [1, 2])' "$tmp/r.json" || die "report written with disturbed_rounds [1, 2]? $(head -c 300 "$tmp/r.json")"
echo "ok: --fail_on_disturbed exits 6 after the report"
# The report names the reco_load that wrote it, as its --version does.
version=$("$load" --version)
/usr/bin/python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["environment"]["tool_version"] != sys.argv[2])' \
  "$tmp/r.json" "$version" || die "the report's environment.tool_version is not \"$version\""
echo "ok: the report carries reco_load's version line"

( expect_run 0 "reco_load: all 2 measured rounds were disturbed" "$tmp" "$load" "${run[@]}" ) || die "above"
[ "$(tail -1 "$tmp/l.err")" = "$(grep "measured rounds were disturbed" "$tmp/l.err")" ] ||
  die "the summary is not the last line: $(cat "$tmp/l.err")"
echo "ok: without it, exit 0 and the summary line last"
stop_spinners
stop_reco_server
echo PASS
