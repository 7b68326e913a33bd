#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts one reco_server per memory
# mode on 127.0.0.1 (free ports), arena_pool a second time on the async API
# (arena_pool_async), fragments and the ceiling, drives all seven with reco_load --
# heap first, the baseline of every ratio -- and prints the comparison table. Writes
# results/report.json and results/report.html (and the servers' logs beside them).
# The servers are stopped (SIGTERM, then waited for) however the run ends. Before
# any server starts it prints how busy the machine already is (load average and a
# 1-second busy sample, also in results/machine-before.txt): figures taken on a busy
# machine are not comparable with a quiet one's.
#
#   scripts/run.sh [reco_load flags...]   e.g. --duration 10s --rounds 5, --rate 500,
#                                         --profile compact, --items 1000
#   scripts/run.sh --compare_api MODE [reco_load flags...]
#       only MODE, served through the callback API (the baseline, target MODE) and
#       the async API (target MODE_async), e.g. --compare_api arena_pool --rounds 7
#   scripts/run.sh --help | -h            prints this text; installs and builds nothing
# Default: 3 rounds x 7 servers x (1 s warm-up + 4 s measured), about 110 seconds.
# It installs only the runtime packages (scripts/setup.sh runtime: the compiler, CMake,
# gRPC, protobuf, abseil and the headers configuring needs) and builds only reco_server
# and reco_load. Exit status: reco_load's (docs/load-client.md); 2 for a flag neither
# run.sh nor reco_load knows.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  # The header above, up to `set`, without its comment marks.
  sed -n '2,/^set -euo pipefail$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
  exit 0
fi
# --compare_api MODE: the two APIs for one memory mode, nothing else. Checked
# before anything is installed, built or written.
compare_api=
if [ "${1:-}" = --compare_api ]; then
  compare_api=${2:-}
  case "$compare_api" in
    heap | reuse | arena | arena_pool) ;;
    *) echo "run.sh: --compare_api takes a memory mode served by both APIs: heap, reuse, arena or arena_pool (got '$compare_api')" >&2
       exit 2 ;;
  esac
  shift 2
fi
scripts/setup.sh runtime
TARGETS="reco_server reco_load" scripts/build.sh >/dev/null
build=${BUILD_DIR:-build}
results=results
mkdir -p "$results"

. scripts/lib/machine_load.sh
echo "machine before run: $(machine_load_line)" | tee "$results/machine-before.txt"

. scripts/lib/reco_servers.sh
trap stop_reco_servers EXIT
trap 'exit 130' INT TERM

# run_reco_load FLAGS...: reco_load with run.sh's flags and the user's; its exit
# status is run.sh's. run.sh passes every option it does not know to reco_load, so
# reco_load's exit 2 names an option neither knows.
run_reco_load() {
  local rc=0
  "$build/client/reco_load" "$@" || rc=$?
  if [ "$rc" = 2 ]; then
    echo "run.sh: reco_load refused a flag (its message is above); run.sh's own options: scripts/run.sh --help" >&2
  fi
  return "$rc"
}

targets=()
if [ -n "$compare_api" ]; then
  for api in callback async; do
    name=$compare_api
    [ "$api" = async ] && name=${compare_api}_async
    start_reco_server "$results/server-$name.log" "$build/server/reco_server" --mode "$compare_api" --api "$api" || exit 1
    targets+=(--target "$name=127.0.0.1:$SERVER_PORT")
  done
  run_reco_load "${targets[@]}" --rounds 3 --warmup 1s --duration 4s \
    --json "$results/report.json" --html "$results/report.html" "$@"
  echo "reports: $results/report.json, $results/report.html"
  exit 0
fi
# fragments (reco_server --mode fragments) splices the catalogue's pre-serialized
# items with per-request scores: a real handler, no reply message.
# The ceiling (reco_server --mode ceiling) comes after the other modes, so heap stays
# the baseline: one reply serialized at start-up for reco_load's first request, sent
# whatever the request says -- the transport's limit, shown as each mode's "QPS share
# of ceiling". Its fixed request follows reco_load's --items/--profile/--seed when
# they are given as separate words (e.g. --profile compact).
ceiling_flags=()
args=("$@")
for i in "${!args[@]}"; do
  case "${args[$i]}" in
    --items) [ "${args[$((i + 1))]:-0}" = 0 ] || ceiling_flags+=(--ceiling_items "${args[$((i + 1))]}") ;;
    --profile) ceiling_flags+=(--ceiling_profile "${args[$((i + 1))]:-}") ;;
    --seed) ceiling_flags+=(--ceiling_seed "${args[$((i + 1))]:-}") ;;
    --items=*) [ "${args[$i]#*=}" = 0 ] || ceiling_flags+=(--ceiling_items "${args[$i]#*=}") ;;
    --profile=*) ceiling_flags+=(--ceiling_profile "${args[$i]#*=}") ;;
    --seed=*) ceiling_flags+=(--ceiling_seed "${args[$i]#*=}") ;;
  esac
done
# arena_pool_async: arena_pool's allocator on the async completion-queue API
# (patterns/async_arena_call.h), beside the callback server of the same mode.
for name in heap reuse arena arena_pool arena_pool_async fragments ceiling; do
  log=$results/server-$name.log
  extra=()
  mode=$name
  [ "$name" = ceiling ] && extra=("${ceiling_flags[@]}")
  [ "$name" = arena_pool_async ] && mode=arena_pool && extra=(--api async)
  start_reco_server "$log" "$build/server/reco_server" --mode "$mode" "${extra[@]}" || exit 1
  targets+=(--target "$name=127.0.0.1:$SERVER_PORT")
done

run_reco_load "${targets[@]}" --rounds 3 --warmup 1s --duration 4s \
  --json "$results/report.json" --html "$results/report.html" "$@"
echo "reports: $results/report.json, $results/report.html"
