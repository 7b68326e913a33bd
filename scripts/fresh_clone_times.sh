#!/usr/bin/env bash
# Times the README's two commands, each in its own fresh clone of HEAD (no build/, no
# results/), and writes what it measured as JSON for scripts/render_docs.py:
#
#   scripts/fresh_clone_times.sh OUT.json [scripts/test.sh arguments...]
#       e.g. scripts/fresh_clone_times.sh docs/results/amd-epyc-2026-12-02/fresh-clone-times.json
#
# Packages already installed stay installed: the times include the build and the run,
# not apt's downloads. The JSON records the compiler cache's hits and misses; COLD=1
# compiles without the cache. Each command's output is shown (its last lines) only when it
# fails. Exits 1 when either command failed (the JSON then records its exit status).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
case ${1:-} in
  ''|-h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
  -*) echo "fresh_clone_times.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
out=$(realpath -m "$1"); shift
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/fresh-clone.XXXXXX)
trap 'rm -rf "$work"' EXIT
repo=$PWD

timed() {  # timed NAME COMMAND...: runs COMMAND in a fresh clone; sets NAME_seconds, NAME_rc
  local name=$1; shift
  git clone -q "$repo" "$work/$name"
  local start=$SECONDS
  (cd "$work/$name" && "$@") >"$work/$name.log" 2>&1
  local rc=$?
  printf -v "${name}_seconds" %s $((SECONDS - start))
  printf -v "${name}_rc" %s "$rc"
  echo "fresh_clone_times: $* took $((SECONDS - start)) s, exit $rc"
  [ "$rc" = 0 ] || tail -30 "$work/$name.log"
}
# The compiler cache (cmake/CompilerCache.cmake) is shared with every other build on
# the machine: its hits and misses over the two commands say whether the build was
# cold. COLD=1 compiles without it (CCACHE_DISABLE).
[ "${COLD:-0}" = 1 ] && export CCACHE_DISABLE=1
ccache_count() { ccache --print-stats 2>/dev/null | awk -v k="$1" '$1 == k {n += $2} END {print n + 0}'; }
command -v ccache >/dev/null && ccache -z >/dev/null
timed run scripts/run.sh
timed test scripts/test.sh "$@"
hits=$(ccache_count direct_cache_hit) hits=$((hits + $(ccache_count preprocessed_cache_hit)))
misses=$(ccache_count cache_miss)

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cat >"$out" <<EOF
{
  "cpu_model": "${cpu:-unknown}",
  "date": "$(date -u +%F)",
  "commit": "$(git rev-parse --short HEAD)",
  "seconds": {"run": $run_seconds, "test": $test_seconds},
  "compiler_cache": {"disabled": ${COLD:-0}, "hits": $hits, "misses": $misses},
  "exit_status": {"run": $run_rc, "test": $test_rc}
}
EOF
echo "fresh_clone_times: wrote $out"
[ "$run_rc" = 0 ] && [ "$test_rc" = 0 ]
