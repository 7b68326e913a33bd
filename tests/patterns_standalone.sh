#!/bin/sh
# patterns/ alone, as a user takes it: copied into an empty folder under another
# name, configured as its own project against the installed packages (no file of the
# rest of the repository within reach), built, and its tests run.
#   tests/patterns_standalone.sh SOURCE_ROOT
# Exits non-zero when any step fails.
set -eu
src=${1:?usage: patterns_standalone.sh SOURCE_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/patterns" "$work/our_arena_bits"
launcher=
if command -v ccache >/dev/null 2>&1; then launcher=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
# The folder is new each run: ccache sees its paths relative to it and leaves the
# working directory out of the hash, so an unchanged file is a hit on the next run.
CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=true
export CCACHE_BASEDIR CCACHE_NOHASHDIR
# The folder's own defaults, but line tables only (-g1, as the project's build): what
# is tested is that it builds and passes alone, and full -g made this the suite's
# longest test. Same machine code either way.
cmake -S "$work/our_arena_bits" -B "$work/build" $launcher -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j"$(nproc)"
ctest --test-dir "$work/build" --output-on-failure -j"$(nproc)" --timeout 300
