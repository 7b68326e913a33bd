#!/usr/bin/env bash
# Every reco binary as released software (cli/flag_parse.h): --version prints the
# CMake project version, the git commit (with -dirty for a changed tree, as built) and
# the build type; --help names no path of the build machine; an unknown flag and a
# value that does not parse exit 2 with absl's message naming the flag.
#   release_cli_test.sh SOURCE_DIR VERSION CONFIG sanitizer=[address|thread] NAME=BINARY:BAD_VALUE_FLAG...
# BAD_VALUE_FLAG is a flag of that binary with a value it cannot parse (--rounds=abc),
# or only a flag that needs a value (--out) for a binary whose flags take any string.
set -uo pipefail
source_dir=$1 version=$2 config=$3 sanitizer=${4#sanitizer=}
shift 4
. "$(dirname "$0")/../../scripts/lib/reco_servers.sh"
reco_test_dir tmp

commit=unknown
if hash=$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null); then
  commit=$hash
  [ -z "$(git -C "$source_dir" status --porcelain --untracked-files=no)" ] || commit=$hash-dirty
fi
case "$config" in
  Release | RelWithDebInfo | MinSizeRel) asserts="NDEBUG defined" ;;  # CMake adds -DNDEBUG for these
  *) asserts="assertions on" ;;
esac
suffix=""
[ -z "$sanitizer" ] || suffix=", $sanitizer sanitizer"

for spec in "$@"; do
  name=${spec%%=*} rest=${spec#*=}
  binary=${rest%%:*} bad_value=${rest#*:}
  want="$name $version (commit $commit, $config build, $asserts$suffix)"
  got=$(timeout 30 "$binary" --version 2>&1) || fail "$name --version exited $?: $got"
  [ "$got" = "$want" ] || fail "$name --version printed '$got', want '$want'"

  timeout 30 "$binary" --help >"$tmp/help" 2>&1 || fail "$name --help exited $?"
  grep -q -- "--" "$tmp/help" || fail "$name --help lists no flag: $(cat "$tmp/help")"
  # absl prints "Flags from FILE:"; FILE must be the source tree's path, not the machine's.
  # reco_load groups its flags by purpose instead (cli/flag_parse.h: FlagGroup), and
  # its --helpfull is absl's.
  grep -n -e "$source_dir" -e "tmp/" -e "Flags from /" "$tmp/help" &&
    fail "$name --help names a path of the build machine (above)"
  if [ "$name" = reco_load ]; then
    grep -q "^  What to drive:$" "$tmp/help" || fail "reco_load --help: not grouped by purpose"
    timeout 30 "$binary" --helpfull >"$tmp/help" 2>&1 || fail "$name --helpfull exited $?"
    grep -n -e "$source_dir" -e "tmp/" -e "Flags from /" "$tmp/help" &&
      fail "$name --helpfull names a path of the build machine (above)"
  fi
  grep -q "Flags from [a-z_]*/[a-z_]*\.cc:" "$tmp/help" || fail "$name --help: no 'Flags from DIR/FILE.cc:' line"

  expect_run 2 "Unknown command line flag 'bogus'" "$tmp" "$binary" --bogus
  expect_run 2 "Unknown command line flag 'nobogus'" "$tmp" "$binary" --nobogus
  flag=${bad_value%%=*}
  if [ "$flag" != "$bad_value" ]; then
    expect_run 2 "Illegal value '${bad_value#*=}' specified for flag '${flag#--}'" "$tmp" "$binary" "$bad_value"
  fi
  expect_run 2 "Missing the value for the flag '${flag#--}'" "$tmp" "$binary" "$flag"
  echo "ok: $name"
done
echo PASS
