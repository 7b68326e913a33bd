#!/usr/bin/env bash
# alloc_ledger's command line: bad input is refused with the flag named and a
# non-zero exit; good input prints the documented JSON.
set -u
ledger=$1
fails=0
expect_error() {  # expect_error WORD-IN-MESSAGE ARGS...
  local word=$1; shift
  local err rc
  err=$("$ledger" "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 0 ] || ! grep -q -- "$word" <<<"$err"; then
    echo "FAIL: alloc_ledger $* exited $rc with: $err"; fails=$((fails + 1))
  fi
}
expect_error "--profile" --profile fancy
expect_error "--items" --items -1
expect_error "--items" --items 10001
expect_error "items" --items lots
expect_error "--modes" --modes heap,stack
expect_error "fragments" --modes fragment   # the message lists the modes, fragments among them
expect_error "--cycles" --cycles 0
expect_error "--warmup_responses" --warmup_responses -1
expect_error "--format" --format yaml
expect_error "nope" --nope
expect_error "unexpected argument" extra

out=$("$ledger" --items 20 --profile compact --format json --cycles 2) || { echo "FAIL: valid run exited non-zero"; exit 1; }
/usr/bin/python3 "$(dirname "$0")/check_ledger_json.py" "$out" || fails=$((fails + 1))

# --modes picks row groups; fragments alone measures the fragments path only, and its
# table rows come last whatever the order asked.
out=$("$ledger" --items 20 --modes fragments --format json --cycles 2) || { echo "FAIL: --modes fragments exited non-zero"; exit 1; }
/usr/bin/python3 -c 'import json, sys; m = json.loads(sys.argv[1])["modes"]; assert list(m) == ["fragments"], m' "$out" \
  || { echo "FAIL: --modes fragments measured: $out"; fails=$((fails + 1)); }
rows=$("$ledger" --items 20 --modes fragments,heap --cycles 2 | awk '$2 == "build" {print $1}' | tr '\n' ' ')
[ "$rows" = "heap fragments " ] || { echo "FAIL: --modes fragments,heap printed build rows: $rows"; fails=$((fails + 1)); }
rows=$("$ledger" --items 20 --modes fragments,arena_alias,heap --cycles 2 | awk '$2 == "build" {print $1}' | tr '\n' ' ')
[ "$rows" = "heap arena_alias fragments " ] || { echo "FAIL: --modes fragments,arena_alias,heap printed build rows: $rows"; fails=$((fails + 1)); }
"$ledger" --help >/dev/null 2>&1; [ $? -le 1 ] || { echo "FAIL: --help"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "alloc_ledger CLI: all checks passed" || { echo "$fails checks failed"; exit 1; }
