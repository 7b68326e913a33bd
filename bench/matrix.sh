#!/usr/bin/env bash
# The benchmark/service matrix: for each malloc (glibc, tcmalloc, jemalloc, mimalloc)
# in one sitting,
#   1. reco_bench under LD_PRELOAD: BM_Cycle (4 modes x 10/200/1000 items x both text
#      profiles) and BM_Parse at 200 items, JSON out;
#   2. the service: one reco_server per memory mode, fragments, and the ceiling
#      (reco_server --mode ceiling, the transport's limit) under LD_PRELOAD, on
#      127.0.0.1 port 0, driven by reco_load (heap first, the baseline; the client
#      itself runs on glibc in every column, so only the servers' malloc changes);
#   3. the malloc swap, paired: scripts/malloc_swap.sh (heap under every malloc and
#      arena_pool under glibc as targets of one interleaved reco_load run; glibc's
#      tunables variants, GLIBC_VARIANTS, among them);
#   4. each mode's share of the ceiling by h2load, when it is installed:
#      scripts/compare_h2load.sh (h2load and reco_load in paired rounds, glibc,
#      realistic text), so the share does not depend on our own client's CPU, and
#      reco_load's client CPU per response is shown next to h2load's.
# Raw JSON and server logs go to a results folder (git-ignored); bench/matrix_page.py
# then writes the page (docs/RESULTS.md, SVG charts in docs/results/). A malloc that
# is not installed is reported SKIPPED, in the output and the page. How busy the
# machine was before the run (load, a 1-second busy sample), other processes' CPU
# during each reco_bench run, and the rounds reco_load marked disturbed by other
# processes are on the page too.
#
#   bench/matrix.sh [--short] [--build DIR] [--out DIR] [--page FILE] [--mallocs "glibc mimalloc"]
#                   [--rounds N] [--archive DIR]
#
# --rounds N: reco_load's and h2load's paired rounds (default 3 in full mode, 1 with
# --short); figures a document quotes as a headline want 5 or more.
# --archive DIR keeps the run's raw JSON (reco_bench and reco_load outputs, meta.txt),
# gzipped, in DIR: for a run whose figures a document quotes (docs/results/).
#
# Full mode (default): reco_bench 3 repetitions x 0.2 s; reco_load 3 rounds x (1 s
# warm-up + 4 s) per target, realistic and compact text; the malloc swap 5 rounds:
# about 20 min on a 2-core VM (docs/RESULTS.md gives its run's time). --short: 0.01 s per benchmark,
# 1 repetition; 1 round x (0.3 s + 1 s), realistic text only: about 60 s there (the
# CI test bench_matrix_short). Short figures are indicative only; the page says which mode
# made it. Binaries built with a sanitizer run under glibc only (the others SKIPPED:
# a sanitizer's runtime must come first, and it brings its own malloc).
# Servers are stopped (SIGTERM, then waited for) however the run ends.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/mallocs.sh"
. "$root/scripts/lib/machine_load.sh"
. "$root/scripts/lib/script_flags.sh"

short=0
build=$root/build
out=""
page=$root/docs/RESULTS.md
mallocs=$MALLOCS
archive=""
rounds=""
command_line="bench/matrix.sh${*:+ $*}"
parse_flags "$0" "--short! --build --out --page --mallocs --rounds --archive" "$@"
for m in $mallocs; do
  case " $MALLOCS " in *" $m "*) ;; *) echo "matrix.sh: --mallocs: unknown malloc '$m' (known: $MALLOCS)" >&2; exit 2 ;; esac
done
case $rounds in
  "") rounds=$([ "$short" -eq 1 ] && echo 1 || echo 3) ;;
  *[!0-9]* | 0) echo "matrix.sh: --rounds: want a whole number of 1 or more, got '$rounds'" >&2; exit 2 ;;
esac
for bin in bench/reco_bench server/reco_server client/reco_load; do
  [ -x "$build/$bin" ] || { echo "matrix.sh: $build/$bin is missing: build first (scripts/build.sh, or --build DIR)" >&2; exit 2; }
done
sanitizer=$(ldd "$build/server/reco_server" 2>/dev/null | grep -oE 'lib(asan|tsan|ubsan)' | head -1 || true)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-$root/results/matrix-$stamp}
mkdir -p "$out"

if [ $short -eq 1 ]; then
  bench_flags=(--benchmark_min_time=0.01)
  load_flags=(--rounds "$rounds" --warmup 0.3s --duration 1s)
  profiles="realistic"
  h2load_env=(MODES="fragments ceiling" "ROUNDS=$rounds" DURATION=1 WARMUP=1)
else
  bench_flags=(--benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
  load_flags=(--rounds "$rounds" --warmup 1s --duration 4s)
  profiles="realistic compact"
  h2load_env=(MODES="heap arena_pool fragments ceiling" "ROUNDS=$rounds" DURATION=4 WARMUP=1)
fi
bench_filter='^BM_Cycle/mode:[a-z_]+/items:(10|200|1000)/profile:[a-z]+$|^BM_Parse/mode:[a-z_]+/items:200/'
modes="heap reuse arena arena_pool fragments"  # servers; reco_bench has the four memory modes

. "$root/scripts/lib/reco_servers.sh"
trap stop_reco_servers EXIT
trap 'exit 130' INT TERM

# Sampled before anything of ours runs: how busy the machine already was.
machine_before=$(machine_load_line)
echo "matrix.sh: machine before run: $machine_before"
{
  echo "mode=$([ $short -eq 1 ] && echo short || echo full)"
  echo "command=$command_line"
  echo "started_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "machine_before=$machine_before"
  echo "profiles=$profiles"
  echo "bench_flags=${bench_flags[*]}"
  echo "bench_filter=$bench_filter"
  echo "load_flags=${load_flags[*]}"
  echo "mallocs=$mallocs"
} >"$out/meta.txt"
start_s=$(date +%s)

for m in $mallocs; do
  dir=$out/$m
  mkdir -p "$dir"
  if [ -n "$sanitizer" ] && [ "$m" != glibc ]; then
    echo "the binaries in $build are built with $sanitizer, whose runtime must come before any LD_PRELOAD" \
      >"$dir/SKIPPED"
    echo "matrix.sh: $m SKIPPED: $(cat "$dir/SKIPPED")"
    continue
  fi
  if ! lib=$(malloc_library "$m" 2>"$dir/SKIPPED"); then
    echo "matrix.sh: $m SKIPPED: $(cat "$dir/SKIPPED")"
    continue
  fi
  rm -f "$dir/SKIPPED"
  echo "matrix.sh: $m: reco_bench ..."
  # The noise guard for reco_bench (reco_load has its own): the machine's busy CPU over
  # the run minus reco_bench's own (bash's `time`), as a share of all CPUs.
  stat_before=$(head -1 /proc/stat 2>/dev/null || echo cpu)
  TIMEFORMAT='%U %S %R'
  { time LD_PRELOAD=$lib "$build/bench/reco_bench" --benchmark_filter="$bench_filter" "${bench_flags[@]}" \
      --benchmark_out="$dir/bench.json" --benchmark_out_format=json >"$dir/bench.txt" 2>&1; } 2>"$dir/bench.time" \
    || { echo "matrix.sh: reco_bench failed under $m:" >&2; cat "$dir/bench.txt" >&2; exit 1; }
  read -r user sys wall <"$dir/bench.time"
  other=$(other_cpu_percent "$stat_before" "$(head -1 /proc/stat 2>/dev/null || echo cpu)" \
    "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$wall")
  echo "bench_other_cpu_percent_$m=$other" >>"$out/meta.txt"
  echo "matrix.sh: $m: reco_bench took ${wall} s; other processes used ${other}% of the machine meanwhile"

  echo "matrix.sh: $m: servers ..."
  targets=()
  for mode in $modes; do
    start_reco_server --preload "$lib" "$dir/server-$mode.log" "$build/server/reco_server" --mode "$mode" || exit 1
    targets+=(--target "$mode=127.0.0.1:$SERVER_PORT")
  done
  for profile in $profiles; do
    # The ceiling's one reply is built for reco_load's first request with this profile.
    start_reco_server --preload "$lib" "$dir/server-ceiling-$profile.log" "$build/server/reco_server" \
      --mode ceiling --ceiling_profile "$profile" || exit 1
    echo "matrix.sh: $m: reco_load, $profile text ..."
    "$build/client/reco_load" "${targets[@]}" --target "ceiling=127.0.0.1:$SERVER_PORT" --profile "$profile" \
      "${load_flags[@]}" --quiet --json "$dir/load-$profile.json" >"$dir/load-$profile.txt" 2>&1 \
      || { echo "matrix.sh: reco_load failed under $m ($profile):" >&2; cat "$dir/load-$profile.txt" >&2; exit 1; }
    grep -E '^(QPS|QPS share)' "$dir/load-$profile.txt" | sed "s/^/  /"
  done
  stop_reco_servers
done

if [ -n "$sanitizer" ]; then
  echo "matrix.sh: malloc swap SKIPPED: the binaries are built with $sanitizer"
else
  echo "matrix.sh: malloc swap (scripts/malloc_swap.sh) ..."
  short_flag=()
  [ "$short" -eq 1 ] && short_flag=(--short)
  "$root/scripts/malloc_swap.sh" "${short_flag[@]}" --build "$build" --out "$out/swap" \
    --profiles "$profiles" | grep -E 'SKIPPED|/ heap-glibc|server CPU/RPC|  QPS ' | sed 's/^/  /'
fi

if ! command -v h2load >/dev/null; then
  echo "matrix.sh: share of the ceiling by h2load SKIPPED: h2load is not installed (nghttp2-client)"
elif [ -n "$sanitizer" ]; then
  echo "matrix.sh: share of the ceiling by h2load SKIPPED: the binaries are built with $sanitizer"
else
  echo "matrix.sh: share of the ceiling by h2load (scripts/compare_h2load.sh) ..."
  mkdir -p "$out/h2load"
  env "${h2load_env[@]}" JSON="$out/h2load/runs.jsonl" SUMMARY="$out/h2load/summary.json" \
    "$root/scripts/compare_h2load.sh" "$build" >"$out/h2load/compare.txt" 2>&1 \
    || { echo "matrix.sh: compare_h2load.sh failed:" >&2; cat "$out/h2load/compare.txt" >&2; exit 1; }
  grep -E '^[a-z_]+:|share of the ceiling|client CPU/response' "$out/h2load/compare.txt" | sed 's/^/  /'
fi

{
  echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "finished_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "wall_seconds=$(( $(date +%s) - start_s ))"
} >>"$out/meta.txt"
/usr/bin/python3 "$root/bench/matrix_page.py" "$out" --page "$page" ${archive:+--archive "$archive"}
if [ -n "$archive" ]; then
  mkdir -p "$archive"
  (cd "$out" && find . -name '*.json' -o -name meta.txt) | while read -r f; do
    mkdir -p "$archive/$(dirname "$f")"
    gzip -9 -n -c "$out/$f" >"$archive/$f.gz"
  done
  echo "matrix.sh: raw JSON archived (gzip) in $archive"
fi
echo "matrix.sh: raw results in $out; page $page ($(( $(date +%s) - start_s )) s)"
