#!/usr/bin/env bash
# Every scripts/*.sh answers --help and refuses an unknown option before it installs,
# builds, starts or deletes anything. A copy of scripts/ runs in a throwaway git
# repository, with recorders on PATH for the tools a script would do that with (cmake,
# ctest, apt-get, sudo, dpkg-query, docker, podman, h2load, nghttpx, chromium, ...), and
# recording stand-ins for build/server/reco_server, build/client/reco_load, the example's
# inbox_server and the compose-up tool beside the repository. For each script:
#   - `SCRIPT --help` exits 0 within 10 s, its stdout starts with the first line of the
#     script's opening comment and holds its synopsis line (`scripts/NAME.sh ...`),
#     without comment marks, and nothing goes to stderr;
#   - `SCRIPT --no-such-flag` exits 2 within 10 s, naming the flag on stderr;
#   - after each, no recorder ran and the copy's `git status --porcelain` is unchanged
#     (a committed results/ file stands for what compose_check.sh and run.sh delete).
# build.sh, test.sh and run.sh pass options they do not know on (to cmake, ctest and
# reco_load), so only their --help is checked here (run.sh's own flags:
# tests/run_sh_test.sh), plus `run.sh --compare_api bogus`: exit 2 before anything.
# Recorders rather than a look at `ps`: the machine is shared, and a reco_server seen
# running may be someone else's.
#   tests/script_help_test.sh SOURCE_DIR
set -uo pipefail
src=$(realpath "$1")
. "$src/scripts/lib/reco_servers.sh"
reco_test_dir tmp

repo=$tmp/repo  # compose_check.sh looks for ../shared/tools/compose-up beside it
mkdir -p "$repo/results" "$repo/build/server" "$repo/build/client" "$repo/build/examples/inbox" \
  "$tmp/bin" "$tmp/shared/tools" "$tmp/record" "$tmp/home" "$tmp/tmp"
cp -r "$src/scripts" "$repo/"
echo "a kept result" >"$repo/results/keep.txt"
recorder() {  # PATH: a program that writes its name and arguments to the record, exits 1
  # shellcheck disable=SC2016  # $* is the fake program's own, not expanded here
  printf '#!/bin/sh\necho "%s $*" >>"$RECORD/ran.log"\nexit 1\n' "$(basename "$1")" >"$1"
  chmod +x "$1"
}
for tool in cmake ctest apt-get sudo dpkg-query docker podman h2load nghttpx chromium perf protoc curl \
    valgrind clang clang++ make ninja kubectl; do
  recorder "$tmp/bin/$tool"
done
for stand_in in build/server/reco_server build/client/reco_load build/examples/inbox/inbox_server; do
  recorder "$repo/$stand_in"
done
recorder "$tmp/shared/tools/compose-up"
git -C "$repo" init -q && git -C "$repo" add -A &&
  git -C "$repo" -c user.name=test -c user.email=test@localhost commit -qm copy || fail "git: cannot commit the copy"
status_before=$(git -C "$repo" status --porcelain)

failures=0
problem() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# run NAME ARGS...: scripts/NAME.sh ARGS in the copy, a clean environment, 10 s at most;
# stdout, stderr and the exit status in $tmp/out, $tmp/err and $rc.
run() {
  local name=$1; shift
  (cd "$tmp/home" && env -i PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$tmp/tmp" RECORD="$tmp/record" \
    timeout -k 2 10 "$repo/scripts/$name.sh" "$@" >"$tmp/out" 2>"$tmp/err")
  rc=$?
}
# untouched WHAT: nothing recorded, the copy as committed; clears the record.
untouched() {
  [ ! -s "$tmp/record/ran.log" ] || problem "$1 ran: $(head -3 "$tmp/record/ran.log" | tr '\n' ' ')"
  local status
  status=$(git -C "$repo" status --porcelain)
  [ "$status" = "$status_before" ] || problem "$1 changed the tree: $(echo "$status" | head -3 | tr '\n' ' ')"
  rm -f "$tmp/record/ran.log"
  git -C "$repo" checkout -q -- . && git -C "$repo" clean -qfdx
}

passes_options_on=" build test run "  # their unknown options go to cmake, ctest, reco_load
checked=0
for script in "$src"/scripts/*.sh; do
  name=$(basename "$script" .sh)
  first_line=$(sed -n '2s/^# \{0,1\}//p' "$script")
  run "$name" --help
  if [ "$rc" != 0 ]; then
    problem "scripts/$name.sh --help exited $rc, want 0: $(head -c 300 "$tmp/err")"
  elif [ "$(head -1 "$tmp/out")" != "$first_line" ]; then
    problem "scripts/$name.sh --help: stdout does not start with its usage ('$first_line'): $(head -1 "$tmp/out")"
  elif ! grep -Eq "^ *scripts/$name\.sh( |$)" "$tmp/out"; then
    problem "scripts/$name.sh --help: no synopsis line 'scripts/$name.sh ...'"
  elif grep -q '^#' "$tmp/out"; then
    problem "scripts/$name.sh --help printed comment marks"
  elif [ -s "$tmp/err" ]; then
    problem "scripts/$name.sh --help wrote to stderr: $(head -c 300 "$tmp/err")"
  fi
  untouched "scripts/$name.sh --help"

  if [[ $passes_options_on != *" $name "* ]]; then
    run "$name" --no-such-flag
    [ "$rc" = 2 ] || problem "scripts/$name.sh --no-such-flag exited $rc, want 2: $(head -c 300 "$tmp/err")"
    grep -q -- --no-such-flag "$tmp/err" || problem "scripts/$name.sh --no-such-flag: stderr does not name the flag"
    untouched "scripts/$name.sh --no-such-flag"
  fi
  checked=$((checked + 1))
done
[ "$checked" -gt 20 ] || problem "only $checked scripts found under $src/scripts"

run run --compare_api bogus
[ "$rc" = 2 ] || problem "scripts/run.sh --compare_api bogus exited $rc, want 2: $(head -c 300 "$tmp/err")"
grep -q "got 'bogus'" "$tmp/err" || problem "scripts/run.sh --compare_api bogus: stderr does not name it"
untouched "scripts/run.sh --compare_api bogus"

[ "$failures" = 0 ] || { echo "script_help_test: $failures problem(s) in $checked scripts" >&2; exit 1; }
echo "ok: $checked scripts answer --help and refuse --no-such-flag, touching nothing"
echo PASS
