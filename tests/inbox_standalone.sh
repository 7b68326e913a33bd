#!/bin/sh
# examples/inbox alone, as a user builds it: examples/inbox and patterns/ copied into
# an empty folder keeping their relative layout (the example takes the pattern files
# from ../../patterns) and nothing else of the repository, configured as its own
# project against the installed packages, built, and its tests run.
# The stats library comes as a user gets it: its one header (stats/server_stats.h,
# copied) and the project's built libreco_server_stats.so (-DRECO_SERVER_STATS_LIB).
#   tests/inbox_standalone.sh SOURCE_ROOT STATS_SO
# Exits non-zero when any step fails.
set -eu
src=${1:?usage: inbox_standalone.sh SOURCE_ROOT STATS_SO}
stats_so=${2:?usage: inbox_standalone.sh SOURCE_ROOT STATS_SO}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/examples"
cp -r "$src/examples/inbox" "$work/src/examples/inbox"
cp -r "$src/patterns" "$work/src/patterns"
mkdir -p "$work/src/stats"
cp "$src/stats/server_stats.h" "$work/src/stats/"
launcher=
if command -v ccache >/dev/null 2>&1; then launcher=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
# The folder is new each run: ccache sees its paths relative to it and leaves the
# working directory out of the hash, so an unchanged file is a hit on the next run.
CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=true
export CCACHE_BASEDIR CCACHE_NOHASHDIR
# The folder's own defaults, but line tables only (-g1, as the project's build): what
# is tested is that it builds and passes alone, and full -g made this the suite's
# longest test. Same machine code either way.
cmake -S "$work/src/examples/inbox" -B "$work/build" -DRECO_SERVER_STATS_LIB="$stats_so" $launcher -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j"$(nproc)"
ctest --test-dir "$work/build" --output-on-failure -j"$(nproc)" --timeout 120
