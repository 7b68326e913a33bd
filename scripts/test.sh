#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test, four ctest
# jobs per CPU (CTEST_PARALLEL_LEVEL overrides; the loads and attacks take two slots and
# are kept apart, see cmake/RecoTesting.cmake). Most tests spend their time waiting on
# sockets and timers, so four jobs per CPU keep the CPUs busy (docs/testing.md has the
# times).
#   scripts/test.sh [ctest arguments, e.g. -R ledger; -LE long for the inner loop]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/script_flags.sh
case ${1:-} in -h|--help) script_usage "$0"; exit 0 ;; esac  # the rest are ctest's
scripts/setup.sh
scripts/build.sh
# --timeout: no test should come near it (the long ones take under a minute); a hung
# one fails in 2 minutes instead of holding the run. ctest.log is what
# scripts/test_times.sh reads.
build=${BUILD_DIR:-build}
ctest --test-dir "$build" -j"${CTEST_PARALLEL_LEVEL:-$((4 * $(nproc)))}" --output-on-failure --timeout 120 \
  --output-log "$build/ctest.log" "$@"
