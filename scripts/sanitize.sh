#!/usr/bin/env bash
# Sanitizer builds: configures, builds and tests under AddressSanitizer (+UBSan and
# LeakSanitizer) or ThreadSanitizer.
#   scripts/sanitize.sh asan   build-asan/: every test but those that cannot run
#                              under ASan (valgrind; allocators given by LD_PRELOAD)
#   scripts/sanitize.sh tsan   build-tsan/: the tests labelled tsan (our own
#                              threading: core_tests, hostile_threads_test, the
#                              patterns without a gRPC server, the canary; see
#                              below why not gRPC's)
# Extra arguments go to ctest, e.g. scripts/sanitize.sh asan -R hostile. ASan runs three
# ctest jobs per CPU (scripts/test.sh four: a sanitized test takes more CPU) and TSan
# two, its tests being busy threads (CTEST_PARALLEL_LEVEL overrides).
# BUILD_DIR overrides the build directory. Exits non-zero on any failure or report.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/script_flags.sh
kind=${1:-}
shift || true
# shellcheck disable=SC2016  # '$kind' below is inside double quotes: it expands
case "$kind" in
  asan | tsan) ;;  # CMakePresets.json: RECO_SANITIZE=address or thread
  -h | --help) script_usage "$0"; exit 0 ;;
  *) echo "sanitize.sh: ${kind:+unknown kind '$kind'; }usage: scripts/sanitize.sh asan|tsan [ctest arguments]" >&2; exit 2 ;;
esac
build=${BUILD_DIR:-build-$kind}
here=$(pwd)

scripts/setup.sh
cmake --preset "$kind" -B "$build" >/dev/null
start=$(date +%s)

# halt_on_error: the first report fails the test. detect_leaks is ASan's default on
# Linux, spelled out because the hostile and fuzz claims rest on it.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$here/sanitizers/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="suppressions=$here/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1:print_suppressions=0"

if [ "$kind" = asan ]; then
  # ASan runs the unit and hostile-input tests: what it can find. Left out:
  #   label load: the loads and floods that measure throughput, cost ratios or peak RSS
  #     (ASan's quarantine and shadow memory are not the binary's figures; an allocator
  #     given with LD_PRELOAD would come before the ASan runtime, which must be first).
  #     The hostile inputs they send run here through the hostile tests; the same
  #     HTTP/2 attacks straight at the server run here as h2_attacks_test.
  #   label standalone: patterns_standalone and inbox_standalone build a folder as a
  #     project of its own, without these flags.
  #   alloc_ledger_valgrind, alloc_ledger_mallocs: valgrind cannot run an ASan binary.
  #   k8s_manifests_test checks YAML; the one server it runs only answers a metrics GET,
  #     which server_metrics_test runs here with hostile clients.
  exclude_labels='^(load|standalone)$'
  exclude='^alloc_ledger_(valgrind|mallocs)$|^k8s_manifests_test$'
  cmake --build "$build" -j"$(nproc)"
  ctest --test-dir "$build" -j"${CTEST_PARALLEL_LEVEL:-$((3 * $(nproc)))}" --output-on-failure --timeout 300 --output-log "$build/ctest.log" -LE "$exclude_labels" -E "$exclude" "$@"
else
  # TSan judges the threading of our own code: the counter and the pools
  # (core_tests), the server's shared pieces under threads (hostile_threads_test),
  # the patterns. Tests that run a gRPC server are not labelled tsan: Debian's libgrpc
  # and libabsl are not instrumented, so TSan cannot see the happens-before their
  # atomics create and reports every object gRPC passes between its threads --
  # hundreds of false reports no small suppression file can honestly hide
  # (docs/reliability.md). Those tests run under ASan instead.
  # Build only what those tests run (cmake/RecoTesting.cmake's target tsan_tests).
  cmake --build "$build" -j"$(nproc)" --target tsan_tests
  ctest --test-dir "$build" -j"${CTEST_PARALLEL_LEVEL:-$((2 * $(nproc)))}" --output-on-failure --timeout 300 --output-log "$build/ctest.log" -L tsan "$@"
fi
echo "sanitize.sh $kind: passed in $(( $(date +%s) - start )) s (build + tests)"
