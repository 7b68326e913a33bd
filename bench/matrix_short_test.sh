#!/usr/bin/env bash
# bench/matrix.sh --short end to end (CTest: bench_matrix_short): the page exists, names
# all four mallocs as run or SKIPPED, has the ceiling row with its share, charts that
# parse as SVG; the raw reco_load JSON shows every target answered without error (glibc
# alone runs: the long form runs four, and malloc_swap_short preloads the others). Then
# the page renderer alone, on a copy of the results with one malloc marked missing,
# must say SKIPPED for it. No speed is asserted.
set -u
build=$1
root=$(cd "$(dirname "$0")/.." && pwd)
# Under a sanitizer build the figures mean nothing and no other malloc can be
# preloaded (the sanitizer's runtime must come first): CTest reports the test skipped.
if ldd "$build/server/reco_server" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
  echo "bench_matrix_short: skipped: $build is a sanitizer build"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A malloc name the script does not know is refused before anything runs.
if err=$("$root/bench/matrix.sh" --short --build "$build" --mallocs "glibc bogus" --out "$work/no" 2>&1); then
  echo "FAIL: --mallocs bogus was accepted"; exit 1
fi
grep -q -- "--mallocs: unknown malloc 'bogus'" <<<"$err" || { echo "FAIL: unexpected message: $err"; exit 1; }
"$root/bench/matrix.sh" --short --build "$build" --rounds 0 --out "$work/no" >"$work/err.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--rounds: want a whole number of 1 or more, got '0'" "$work/err.txt" ||
  { echo "FAIL: --rounds 0 exited $rc: $(cat "$work/err.txt")"; exit 1; }

# glibc alone (nothing preloaded); the page must still name the other three (SKIPPED,
# not asked for). Two rounds: --rounds reaches reco_load.
"$root/bench/matrix.sh" --short --build "$build" --mallocs "glibc" --rounds 2 --out "$work/raw" --page "$work/page/RESULTS.md" \
  >"$work/out.txt" 2>&1 || { echo "FAIL: matrix.sh --short exited non-zero"; cat "$work/out.txt"; exit 1; }
cat "$work/out.txt"

/usr/bin/python3 "$root/bench/check_matrix_short.py" "$work" || exit 1

# The renderer alone: a malloc asked for whose library is missing must show as SKIPPED.
cp -r "$work/raw" "$work/raw2"
sed -i 's/^mallocs=.*/mallocs=glibc jemalloc/' "$work/raw2/meta.txt"
rm -rf "$work/raw2/jemalloc" && mkdir "$work/raw2/jemalloc"
echo "jemalloc is not installed (/usr/lib/x/libjemalloc.so.2 missing)" >"$work/raw2/jemalloc/SKIPPED"
/usr/bin/python3 "$root/bench/matrix_page.py" "$work/raw2" --page "$work/page2.md" >/dev/null \
  || { echo "FAIL: matrix_page.py failed on a skipped malloc"; exit 1; }
grep -q '\*\*jemalloc\*\* SKIPPED (jemalloc is not installed' "$work/page2.md" \
  || { echo "FAIL: the page does not mark jemalloc SKIPPED"; exit 1; }
# shellcheck disable=SC2016  # the backticks are Markdown's
grep -q '^| `ceiling` |.*| SKIPPED |$' "$work/page2.md" \
  || { echo "FAIL: the service table has no SKIPPED column"; exit 1; }
echo "bench matrix short: all checks passed"
