#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang into build-fuzz/ and runs each for
# a bounded time, starting from its seeds in fuzz/corpus/TARGET.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]     default 30
# Inputs the fuzzer finds interesting go to build-fuzz/corpus/TARGET (not the repo);
# a crash, leak or failed check stops the target, leaves the input in
# build-fuzz/artifacts/ and makes the script exit non-zero. Prints per target the
# executions, the coverage (libFuzzer's cov: edges, ft: features) and corpus size.
# docs/reliability.md says how to run longer and how to replay a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/script_flags.sh
parse_positionals "$0" "$@"
seconds=${1:-30}
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: SECONDS_PER_TARGET must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
build=${BUILD_DIR:-build-fuzz}
targets=(request_handler_fuzz response_check_fuzz server_call_fuzz)

scripts/setup.sh
cmake --preset fuzz -B "$build" >/dev/null  # CMakePresets.json: clang++, RECO_FUZZ=ON
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

# LeakSanitizer runs after every input; halt at the first UBSan report too.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p "$build/artifacts"
fails=0
for t in "${targets[@]}"; do
  work="$build/corpus/$t"
  mkdir -p "$work"
  log="$build/$t.log"
  # -rss_limit_mb: ASan's quarantine grows the process; 2 GiB stays within the machine.
  if "$build/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t-" "$work" "fuzz/corpus/$t" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    fails=$((fails + 1))
  fi
  done_line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' <<<"$done_line")
  corpus=$(find "$work" -mindepth 1 -maxdepth 1 | wc -l)
  echo "fuzz $t: $status  ${execs:-?} executions in ${seconds} s, coverage ${cov:-?}, corpus ${corpus} inputs (+ $(find "fuzz/corpus/$t" -mindepth 1 -maxdepth 1 | wc -l) seeds)"
  if [ "$status" = FAILED ]; then
    grep -E 'ERROR|SUMMARY|_fuzz: |artifact' "$log" | head -20
    echo "full log: $log"
  fi
done
[ $fails -eq 0 ]
