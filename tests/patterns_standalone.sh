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
cmake -S "$work/our_arena_bits" -B "$work/build" $launcher >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j"$(nproc)"
ctest --test-dir "$work/build" --output-on-failure -j"$(nproc)" --timeout 300
