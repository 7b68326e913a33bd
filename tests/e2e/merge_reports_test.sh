#!/usr/bin/env bash
# Distributed load in miniature: two reco_load processes drive one reco_server at the
# same time, `reco_load merge` merges their JSON reports, and check_merged_report.py
# checks that the merge added them exactly (ok and latency counts are the sums, the
# buckets add, the window is not summed). Then merge must refuse (exit 2, naming the
# file) the same report twice, a report of another run, a run made after the first two
# (windows that did not overlap), a missing file and non-JSON; and the kept reports
# under docs/results must parse: those from before merge's buckets refused for that,
# newer ones merged alone.
#   tests/e2e/merge_reports_test.sh RECO_SERVER RECO_LOAD
set -uo pipefail
server=$1 load=$2
here=$(dirname "$0")
. "$here/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

start_reco_server "$tmp/s.out" "$server" --mode arena_pool || fail "reco_server did not start"
target="arena_pool=127.0.0.1:$SERVER_PORT"
short=(--target "$target" --rounds 1 --duration 1s --warmup 0.2s --concurrency 2 --connections 1 --quiet)

# Started just after a multiple of 3 s, both wait (--align_start) for the next one
# after their probes, so their windows begin together however long the probes took.
sleep "$(/usr/bin/python3 -c 'import time; print(3 - time.time() % 3)')"
timeout 60 "$load" "${short[@]}" --align_start 3s --json "$tmp/a.json" >"$tmp/a.out" 2>&1 &
a=$!
timeout 60 "$load" "${short[@]}" --align_start 3s --json "$tmp/b.json" >"$tmp/b.out" 2>&1 &
b=$!
wait $a || fail "first reco_load exited $?: $(cat "$tmp/a.out")"
wait $b || fail "second reco_load exited $?: $(cat "$tmp/b.out")"
echo "ok: two reco_load runs at the same time"

"$load" merge "$tmp/a.json" "$tmp/b.json" --json "$tmp/m.json" --csv "$tmp/m.csv" >"$tmp/m.out" 2>"$tmp/m.err" ||
  fail "merge exited $?: $(cat "$tmp/m.err")"
grep -q "arena_pool" "$tmp/m.out" || fail "no table row for arena_pool: $(cat "$tmp/m.out")"
grep -q "merged from 2 reports" "$tmp/m.out" || fail "the table does not say it is merged: $(cat "$tmp/m.out")"
[ -s "$tmp/m.csv" ] || fail "no CSV written"
/usr/bin/python3 "$here/check_merged_report.py" "$tmp/m.json" "$tmp/a.json" "$tmp/b.json" || fail "merged report is not the sum"
echo "ok: merged report is the exact sum"

# expect_merge TEXT ARGS...: reco_load merge ARGS exits 2 and its stderr holds TEXT.
expect_merge() {
  local text=$1
  shift
  "$load" merge "$@" >"$tmp/x.out" 2>"$tmp/x.err"
  local rc=$?
  [ "$rc" = 2 ] || fail "reco_load merge $* exited $rc, want 2: $(cat "$tmp/x.err")"
  grep -qF -- "$text" "$tmp/x.err" || fail "reco_load merge $*: stderr lacks '$text': $(cat "$tmp/x.err")"
}
expect_merge "$tmp/a.json: cannot merge with $tmp/a.json: the same run twice" "$tmp/a.json" "$tmp/a.json"
/usr/bin/python3 "$here/make_other_run.py" "$tmp/a.json" "$tmp/other.json"
expect_merge "$tmp/other.json: cannot merge with $tmp/a.json: rounds differ" "$tmp/a.json" "$tmp/other.json"
# A run made after the first two: its window did not overlap theirs.
timeout 60 "$load" "${short[@]}" --json "$tmp/later.json" >"$tmp/later.out" 2>&1 || fail "third reco_load exited $?: $(cat "$tmp/later.out")"
expect_merge "$tmp/later.json: cannot merge with $tmp/a.json: arena_pool round 1 did not run at the same time" \
  "$tmp/a.json" "$tmp/later.json"
expect_merge "$tmp/missing.json: cannot read" "$tmp/a.json" "$tmp/missing.json"
echo "not json" >"$tmp/bad.json"
expect_merge "$tmp/bad.json: not valid JSON" "$tmp/a.json" "$tmp/bad.json"
expect_merge "give the JSON reports to merge"
echo "ok: merge refuses a run twice, another run, a run made after, a missing file, non-JSON, no file (exit 2)"
# The kept reports (docs/results) predate merge's histogram buckets: each must still
# parse against the schema (proto/load_report.proto), then be refused for its missing
# layout -- not for a key or a type the reader no longer knows.
kept=0 newer=0
for f in "$here"/../../docs/results/*/*.json.gz "$here"/../../docs/results/*/*/load-*.json.gz \
         "$here"/../../docs/results/*/*/*/load-*.json.gz "$here"/../../docs/results/*/*/*/swap-*.json.gz \
         "$here"/../../docs/results/*/*/fragments_slices_*.json.gz; do
  [ -e "$f" ] || continue
  zcat "$f" >"$tmp/kept.json"
  if grep -q '"histogram_layout"' "$tmp/kept.json"; then
    # Kept since merge had buckets (docs/results/amd-epyc-2026-12-02 on): one merges alone.
    "$load" merge "$tmp/kept.json" >"$tmp/x.out" 2>"$tmp/x.err" || fail "reco_load merge $f: $(cat "$tmp/x.err")"
    grep -q "QPS" "$tmp/x.out" || fail "reco_load merge $f printed no table"
    newer=$((newer + 1))
  else
    expect_merge "$tmp/kept.json: histogram_layout: missing" "$tmp/kept.json"
    kept=$((kept + 1))
  fi
done
[ "$kept" -gt 0 ] || fail "no kept report found under docs/results"
echo "ok: $kept kept reports parse and are refused for their missing histogram layout (exit 2); $newer newer ones merge"
stop_reco_server
echo PASS
