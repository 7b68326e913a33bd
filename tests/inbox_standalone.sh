#!/bin/sh
# examples/inbox alone, as a user builds it: examples/inbox and patterns/ copied into
# an empty folder keeping their relative layout (the example takes the pattern files
# from ../../patterns) and nothing else of the repository, configured as its own
# project against the installed packages, built, and its tests run.
#   tests/inbox_standalone.sh SOURCE_ROOT
# Exits non-zero when any step fails.
set -eu
src=${1:?usage: inbox_standalone.sh SOURCE_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/examples"
cp -r "$src/examples/inbox" "$work/src/examples/inbox"
cp -r "$src/patterns" "$work/src/patterns"
launcher=
if command -v ccache >/dev/null 2>&1; then launcher=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
cmake -S "$work/src/examples/inbox" -B "$work/build" $launcher >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j"$(nproc)"
ctest --test-dir "$work/build" --output-on-failure -j"$(nproc)" --timeout 120
