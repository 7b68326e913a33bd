#!/usr/bin/env bash
# Sanitizer builds: configures, builds and tests under AddressSanitizer (+UBSan and
# LeakSanitizer) or ThreadSanitizer.
#   scripts/sanitize.sh asan   build-asan/: every test but those that cannot run
#                              under ASan (valgrind; allocators given by LD_PRELOAD)
#   scripts/sanitize.sh tsan   build-tsan/: the concurrent tests -- server_*,
#                              patterns_*, hostile_*, core_tests, the canary
# Extra arguments go to ctest, e.g. scripts/sanitize.sh asan -R hostile.
# BUILD_DIR overrides the build directory. Exits non-zero on any failure or report.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
shift || true
case "$kind" in
  asan) sanitize=address ;;
  tsan) sanitize=thread ;;
  *) echo "usage: scripts/sanitize.sh asan|tsan [ctest arguments]" >&2; exit 2 ;;
esac
build=${BUILD_DIR:-build-$kind}
here=$(pwd)

scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRECO_SANITIZE=$sanitize >/dev/null
start=$(date +%s)

# halt_on_error: the first report fails the test. detect_leaks is ASan's default on
# Linux, spelled out because the hostile and fuzz claims rest on it.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$here/sanitizers/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="suppressions=$here/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1:print_suppressions=0"

if [ "$kind" = asan ]; then
  # Not meaningful under ASan: valgrind cannot run an ASan binary, and an allocator
  # given with LD_PRELOAD would come before the ASan runtime (which must be first).
  exclude='^alloc_ledger_(valgrind|mallocs)$'
  cmake --build "$build" -j"$(nproc)"
  ctest --test-dir "$build" --output-on-failure --timeout 900 -E "$exclude" "$@"
else
  # TSan is for code where threads meet: the server, the patterns that run one, the
  # hostile clients; core_tests covers the counter's and the pools' own threading.
  include='^(server_|patterns_|hostile_|core_tests$|sanitizer_canary)'
  # Build only what the selected tests run: a GoogleTest test is named after its
  # target; the canary tests run sanitizer_canary.
  known=$(cmake --build "$build" --target help | sed -n 's/^\.\.\. //p')
  targets=(sanitizer_canary)
  for t in $(ctest --test-dir "$build" -N -R "$include" | sed -n 's/^ *Test *#[0-9]*: //p'); do
    grep -qx "$t" <<<"$known" && targets+=("$t")
  done
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
  ctest --test-dir "$build" --output-on-failure --timeout 900 -R "$include" "$@"
fi
echo "sanitize.sh $kind: passed in $(( $(date +%s) - start )) s (build + tests)"
