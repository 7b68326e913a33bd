#!/usr/bin/env bash
# reco_bench in a very short mode: a few benchmarks of every family run, the JSON
# output parses, and every benchmark carries the counters docs/benchmarks.md
# promises. No number is asserted except allocation counts that are exact by design.
set -u
bench=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0

# A misspelt flag is refused, naming it, with a non-zero exit.
err=$("$bench" --benchmark_filtr=x 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] || ! grep -q -- "--benchmark_filtr" <<<"$err"; then
  echo "FAIL: a misspelt flag exited $rc with: $err"; fails=$((fails + 1))
fi

filter='^BM_(Cycle|Build|Serialize|Release|Parse|ParseCycle)/mode:[a-z_]+/items:10/profile:compact'
filter+='|^BM_CycleThreaded/mode:arena_pool/items:200/profile:compact'
filter+='|^BM_ArenaSharing/arena:(per_thread|shared)/items:200/profile:compact'
filter+='|^BM_ArenaBlocks/start_block:256B/max_block:8KiB/items:200/profile:compact'
filter+='|^BM_ArenaInitialBlock/initial_block:(0B|512KiB)/items:200/profile:compact'
filter+='|^BM_CopyItems/mode:[a-z_]+/items:200/profile:compact/how:'
filter+='|^BM_Fragments/items:(10|200)/profile:[a-z]+/reply:'
"$bench" --benchmark_filter="$filter" --benchmark_min_time=0.01 \
  --benchmark_out="$out/run.json" --benchmark_out_format=json >"$out/stdout" 2>&1 \
  || { echo "FAIL: reco_bench exited non-zero"; cat "$out/stdout"; exit 1; }

/usr/bin/python3 "$(dirname "$0")/check_bench_smoke.py" "$out/run.json" "$(nproc)" || fails=$((fails + 1))
[ $fails -eq 0 ] && echo "bench smoke: all checks passed" || { echo "$fails checks failed"; exit 1; }
