#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# inbox_server as a user meets it: bad flags name the flag and exit 2; each variant
# prints its one "listening" line with the real port (port 0) and stops cleanly on
# SIGTERM and SIGINT (exit 0); a busy port exits 1.
#   inbox_server_cli_test.sh INBOX_SERVER
set -u
server=${1:?usage: inbox_server_cli_test.sh INBOX_SERVER}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_exit RC TEXT FLAGS...: exits RC saying TEXT on stderr. `timeout`: a flag
# wrongly accepted would leave the server listening (exit 124).
expect_exit() {
  want=$1 text=$2
  shift 2
  timeout 30 "$server" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = "$want" ] || fail "inbox_server $* exited $rc, want $want"
  grep -q -- "$text" "$tmp/err" || fail "inbox_server $*: stderr lacks '$text': $(cat "$tmp/err")"
}
expect_exit 2 "--variant=arena is not one of heap, pooled_arena, spliced" --variant=arena --listen=127.0.0.1:0
expect_exit 2 "--listen=nonsense is not HOST:PORT" --listen=nonsense
expect_exit 2 "--listen=127.0.0.1:99999 is not HOST:PORT" --listen=127.0.0.1:99999
expect_exit 2 "unexpected argument 'extra'" --listen=127.0.0.1:0 extra
timeout 30 "$server" --help >"$tmp/help" 2>&1
grep -q -- "--variant" "$tmp/help" || fail "--help does not list --variant: $(cat "$tmp/help")"

# start VARIANT [ADDRESS]: starts the server in the background; sets pid and port.
start() {
  rm -f "$tmp/serve.out" && : >"$tmp/serve.out"
  "$server" --variant="$1" --listen="${2:-127.0.0.1:0}" >"$tmp/serve.out" 2>"$tmp/serve.err" &
  pid=$!
  for _ in $(seq 300); do
    line=$(head -n 1 "$tmp/serve.out")
    [ -n "$line" ] && break
    kill -0 "$pid" 2>/dev/null || fail "inbox_server --variant=$1 exited early: $(cat "$tmp/serve.err")"
    sleep 0.1
  done
  echo "$line" | grep -Eq "^inbox_server \\($1\\) listening on 127\\.0\\.0\\.1:[1-9][0-9]*\$" ||
    fail "--variant=$1: unexpected first line '$line'"
  port=${line##*:}
}

# stop SIGNAL: the server stops cleanly within 30 s.
stop() {
  kill -"$1" "$pid"
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  wait "$pid"
  rc=$?
  pid=
  [ "$rc" = 0 ] || fail "inbox_server exited $rc on SIG$1, want 0: $(cat "$tmp/serve.err")"
  grep -q "stopped on signal" "$tmp/serve.out" || fail "no 'stopped' line after SIG$1"
}

for variant in heap pooled_arena spliced; do
  start "$variant"
  stop TERM
done
start spliced
expect_exit 1 "cannot listen there" --variant=heap --listen="127.0.0.1:$port"
stop INT
echo "inbox_server CLI: ok"
