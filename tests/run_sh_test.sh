#!/usr/bin/env bash
# scripts/run.sh's wiring, without building or loading anything: a copy of scripts/
# runs with cmake, dpkg-query, apt-get and sudo replaced by recorders on PATH, and
# stand-ins for reco_server (prints its listening line, waits for SIGTERM) and
# reco_load (records its flags; exits 2 naming --bogus, as the real one does).
#   - `run.sh --help` and `-h` print the header's usage, exit 0, query and build nothing;
#   - a run asks dpkg for exactly `setup.sh runtime --print`, none of the test-only
#     packages, and builds only reco_server and reco_load;
#   - an option neither run.sh nor reco_load knows: run.sh exits 2 and says so.
#   tests/run_sh_test.sh SOURCE_DIR
set -uo pipefail
src=$1
. "$src/scripts/lib/reco_servers.sh"
reco_test_dir tmp

mkdir -p "$tmp/repo" "$tmp/bin" "$tmp/build/server" "$tmp/build/client"
cp -r "$src/scripts" "$tmp/repo/"
cat >"$tmp/bin/cmake" <<'SH'
#!/bin/sh
echo "cmake $*" >>"$RECORD/cmake.log"
SH
cat >"$tmp/bin/dpkg-query" <<'SH'
#!/bin/sh
for last; do :; done
echo "$last" >>"$RECORD/dpkg.log"
printf 'install ok installed'
SH
for tool in apt-get sudo; do
  # shellcheck disable=SC2016  # $* is the fake tool's own, not expanded here
  printf '#!/bin/sh\necho "%s $*" >>"$RECORD/apt.log"\nexit 1\n' "$tool" >"$tmp/bin/$tool"
done
cat >"$tmp/build/server/reco_server" <<'SH'
#!/bin/sh
trap 'exit 0' TERM
echo "reco_server: listening on 127.0.0.1:$((40000 + $$ % 1000)) mode=stand-in"
while :; do sleep 0.1; done
SH
cat >"$tmp/build/client/reco_load" <<'SH'
#!/bin/sh
echo "$*" >>"$RECORD/reco_load.log"
for a; do
  [ "$a" = --bogus ] && { echo "reco_load: Unknown command line flag 'bogus' (see --help)" >&2; exit 2; }
done
exit 0
SH
chmod +x "$tmp"/bin/* "$tmp"/build/*/*
run() { RECORD=$tmp PATH="$tmp/bin:$PATH" BUILD_DIR="$tmp/build" timeout 60 "$tmp/repo/scripts/run.sh" "$@"; }

for help in --help -h; do
  run "$help" >"$tmp/help.out" 2>&1 || fail "run.sh $help exited $?: $(cat "$tmp/help.out")"
  grep -q "^  scripts/run.sh \[reco_load flags...\]" "$tmp/help.out" || fail "run.sh $help: no usage: $(cat "$tmp/help.out")"
  grep -q "^#" "$tmp/help.out" && fail "run.sh $help printed comment marks"
  [ -e "$tmp/dpkg.log" ] || [ -e "$tmp/cmake.log" ] && fail "run.sh $help queried packages or built"
done
echo "ok: --help and -h"

run --duration 1s >"$tmp/run.out" 2>&1 || fail "run.sh exited $?: $(cat "$tmp/run.out")"
[ -e "$tmp/apt.log" ] && fail "run.sh ran apt-get or sudo: $(cat "$tmp/apt.log")"
"$src/scripts/setup.sh" runtime --print >"$tmp/runtime.txt"
"$src/scripts/setup.sh" --print >"$tmp/all.txt"
diff <(sort "$tmp/runtime.txt") <(sort -u "$tmp/dpkg.log") || fail "run.sh asked dpkg for other packages than setup.sh runtime's (above)"
for p in valgrind clang chromium nghttp2-client nghttp2-proxy kubernetes-client python3-h2 python3-grpcio; do
  grep -qx "$p" "$tmp/runtime.txt" && fail "setup.sh runtime requires the test-only package $p"
  grep -qx "$p" "$tmp/all.txt" || [ "$p" = kubernetes-client ] || fail "setup.sh (all) lacks $p"
done
build_lines=$(grep -c -- "--build" "$tmp/cmake.log")
[ "$build_lines" = 1 ] || fail "run.sh ran $build_lines cmake --build lines: $(cat "$tmp/cmake.log")"
grep -- "--build" "$tmp/cmake.log" | grep -Eq -- "--build $tmp/build -j[0-9]+ --target reco_server --target reco_load$" ||
  fail "run.sh's build is not of reco_server and reco_load only: $(grep -- --build "$tmp/cmake.log")"
[ "$(grep -o -- "--target [a-z_]*=127.0.0.1:[0-9]*" "$tmp/reco_load.log" | wc -l)" = 7 ] ||
  fail "reco_load did not get seven targets: $(cat "$tmp/reco_load.log")"
grep -q -- "--duration 1s$" "$tmp/reco_load.log" || fail "the user's flags did not reach reco_load last"
echo "ok: runtime packages only, reco_server and reco_load built, seven targets"

run --bogus >"$tmp/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "run.sh --bogus exited $rc, want 2: $(cat "$tmp/bad.out")"
grep -q "Unknown command line flag 'bogus'" "$tmp/bad.out" || fail "reco_load's message is missing: $(cat "$tmp/bad.out")"
grep -q "^run.sh: reco_load refused a flag" "$tmp/bad.out" || fail "run.sh did not say so: $(cat "$tmp/bad.out")"
echo "ok: --bogus exits 2"
echo PASS
