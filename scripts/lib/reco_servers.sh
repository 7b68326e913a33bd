# shellcheck shell=bash
# shellcheck disable=SC2034  # SERVER_PORT, SERVER_RC and the like are read by the scripts that source this
# Source this file (by a path computed from the sourcing script's own location). The
# one place that starts reco_server on a free 127.0.0.1 port, reads its port from the
# line it prints, and stops it; used by scripts/, bench/, server/ and client/ scripts.
# Safe under `set -euo pipefail`.
#
#   start_reco_server [--preload LIB] [--stderr ERRFILE] LOG BINARY [FLAGS...]
#       starts BINARY --listen 127.0.0.1:0 FLAGS with stdout (and stderr, unless
#       --stderr gives it a file of its own) in LOG; with --preload, LD_PRELOAD=LIB
#       (an empty LIB clears an inherited one). Waits up to 10 s for the listening
#       line, then sets SERVER_PORT and SERVER_PID and adds the pid to
#       RECO_SERVER_PIDS. On failure prints the server's output to stderr, stops
#       it, and returns 1.
#       Call it directly, not in $(...): a subshell would lose the pid.
#   reco_server_port LOG   prints the port of the listening line in LOG
#       ("reco_server: listening on 127.0.0.1:PORT mode=MODE[ tls=on]", or the
#       example's "inbox_server (VARIANT) listening on 127.0.0.1:PORT"); returns 1
#       when LOG has none (yet).
#   stop_reco_server [PID] SIGTERM to PID (default SERVER_PID), waits up to 15 s,
#       sets SERVER_RC to its exit status; one that ignores SIGTERM is killed and
#       the script fails.
#   stop_reco_servers      SIGTERM to every server started and not yet stopped,
#       waits up to 15 s for them all; kills any left and returns 1.
#   start_edge LOG BACKEND_PORT  starts the shipped edge (edge/run_edge.sh: haproxy with
#       edge/haproxy.cfg in front of nghttpx with edge/nghttpx.conf) on a free 127.0.0.1
#       port in front of the h2c reco_server on 127.0.0.1:BACKEND_PORT; output in LOG.
#       Waits up to 10 s for both to accept connections, then sets EDGE_PORT, EDGE_PID
#       (run_edge.sh's, added to RECO_SERVER_PIDS) and EDGE_PROCESSES (the pids of
#       nghttpx and haproxy, comma-separated). On failure prints LOG and returns 1.
#   stop_edge              SIGTERM to EDGE_PID and waits, as stop_reco_server.
#   EDGE_SERVER_FLAGS      the flags of a reco_server behind the edge, as shipped
#       (--flagfile edge/reco_server.flags): start_reco_server LOG BIN --mode M
#       "${EDGE_SERVER_FLAGS[@]}".
#   make_cert DIR NAME...  for each NAME a self-signed certificate for localhost and
#       127.0.0.1, made now with openssl (keys are never committed), as DIR/NAME.crt
#       and DIR/NAME.key; fails when openssl is missing.
#   reco_test_dir VAR      for tests: makes a temporary directory, sets VAR to it, and
#       sets an EXIT trap that kills (SIGKILL) every server started and not stopped,
#       then removes the directory. Call it directly, not in $(...).
#   fail MESSAGE           prints "FAIL: MESSAGE" to stderr and exits 1.
#   expect_run RC TEXT DIR CMD...  for tests: runs CMD (60 s at most) with stdout in
#       DIR/l.out and stderr in DIR/l.err; fails unless it exits RC and, when TEXT is
#       not empty, its stderr contains TEXT.
#   sanitized_build BINARY true when BINARY was built with ASan or TSan (whose
#       quarantine and shadow memory make RSS figures meaningless, and whose runtime
#       needs file descriptors of its own).
RECO_SERVER_PIDS=()
EDGE_SERVER_FLAGS=(--flagfile "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/edge/reco_server.flags")

fail() { echo "FAIL: $*" >&2; exit 1; }

expect_run() {
  local want_rc=$1 text=$2 dir=$3 rc
  shift 3
  timeout 60 "$@" >"$dir/l.out" 2>"$dir/l.err"
  rc=$?
  [ "$rc" = "$want_rc" ] || fail "$* exited $rc, want $want_rc: $(cat "$dir/l.err")"
  [ -z "$text" ] || grep -q -- "$text" "$dir/l.err" || fail "$*: stderr lacks '$text': $(cat "$dir/l.err")"
}

sanitized_build() { grep -qaE '__(asan|tsan)_init' "$1"; }

reco_server_port() {
  local port
  port=$(sed -n -e 's/^reco_server: listening on 127\.0\.0\.1:\([0-9][0-9]*\) mode=.*$/\1/p' \
    -e 's/^inbox_server ([a-z_]*) listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$1" 2>/dev/null) || return 1
  [ -n "$port" ] || return 1
  echo "$port"
}

start_reco_server() {
  local preload=() err="" log bin pid why
  while [ $# -gt 0 ]; do
    case $1 in
      --preload) preload=(env "LD_PRELOAD=$2"); shift 2 ;;
      --stderr) err=$2; shift 2 ;;
      *) break ;;
    esac
  done
  log=$1 bin=$2
  shift 2
  # Remove the old logs first: the shell may not have truncated them yet when the
  # loop below reads them, and a stale line would give a dead server's port.
  rm -f "$log" ${err:+"$err"}
  if [ -n "$err" ]; then
    "${preload[@]}" "$bin" --listen 127.0.0.1:0 "$@" >"$log" 2>"$err" &
  else
    "${preload[@]}" "$bin" --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
  fi
  pid=$!
  SERVER_PID=$pid
  RECO_SERVER_PIDS+=("$pid")
  SERVER_PORT=""
  why="printed no listening line within 10 s"
  for _ in $(seq 100); do
    if SERVER_PORT=$(reco_server_port "$log"); then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      why="exited early"
      break
    fi
    sleep 0.1
  done
  echo "reco_server $*: $why; its output:" >&2
  cat "$log" ${err:+"$err"} >&2
  _reco_servers_end "$pid" || true
  return 1
}

# _reco_servers_end PIDS...: SIGTERM, up to 15 s for all to exit, SIGKILL for the rest;
# reaps them (SERVER_RC: the last one's status) and drops them from RECO_SERVER_PIDS.
# Returns 1 when one had to be killed.
_reco_servers_end() {
  local pid alive killed=0 keep=() p
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  for _ in $(seq 150); do
    alive=0
    for pid in "$@"; do
      if kill -0 "$pid" 2>/dev/null; then alive=1; fi
    done
    if [ "$alive" = 0 ]; then break; fi
    sleep 0.1
  done
  for pid in "$@"; do
    if kill -0 "$pid" 2>/dev/null; then
      pkill -KILL -P "$pid" 2>/dev/null || true  # the edge's two processes
      kill -KILL "$pid" 2>/dev/null || true
      killed=1
    fi
    SERVER_RC=0
    wait "$pid" 2>/dev/null || SERVER_RC=$?
  done
  for p in "${RECO_SERVER_PIDS[@]}"; do
    for pid in "$@"; do
      if [ "$p" = "$pid" ]; then continue 2; fi
    done
    keep+=("$p")
  done
  RECO_SERVER_PIDS=("${keep[@]}")
  return "$killed"
}

start_edge() {
  local log=$1 backend=$2 edge pid h2_port
  edge="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/edge"
  command -v nghttpx >/dev/null || { echo "nghttpx is not installed (nghttp2-proxy)" >&2; return 1; }
  command -v haproxy >/dev/null || { echo "haproxy is not installed" >&2; return 1; }
  for _ in 1 2 3; do  # a free port, taken by someone else between the pick and the bind: try again
    read -r EDGE_PORT h2_port < <(/usr/bin/python3 -c 'import socket
s, t = socket.socket(), socket.socket()
s.bind(("127.0.0.1", 0)); t.bind(("127.0.0.1", 0))
print(s.getsockname()[1], t.getsockname()[1])')
    rm -f "$log"
    EDGE_CONF_DIR=$edge EDGE_H2_PORT=$h2_port "$edge/run_edge.sh" "127.0.0.1:$EDGE_PORT" \
      "127.0.0.1,$backend;;proto=h2" >"$log" 2>&1 &
    pid=$!
    EDGE_PID=$pid
    RECO_SERVER_PIDS+=("$pid")
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      if (exec 3<>"/dev/tcp/127.0.0.1/$EDGE_PORT") 2>/dev/null &&
        (exec 3<>"/dev/tcp/127.0.0.1/$h2_port") 2>/dev/null; then
        EDGE_PROCESSES=$(pgrep -d, -P "$pid")
        return 0
      fi
      sleep 0.1
    done
    _reco_servers_end "$pid" || true
  done
  echo "the edge did not start; its output:" >&2
  cat "$log" >&2
  return 1
}

stop_edge() {
  _reco_servers_end "$EDGE_PID" || fail "the edge ignored SIGTERM for 15 s"
}

stop_reco_server() {
  _reco_servers_end "${1:-$SERVER_PID}" || fail "reco_server ignored SIGTERM for 15 s"
}

stop_reco_servers() {
  _reco_servers_end "${RECO_SERVER_PIDS[@]}" && return 0
  echo "reco_server ignored SIGTERM for 15 s: killed" >&2
  return 1
}

make_cert() {
  local dir=$1 name
  shift
  command -v openssl >/dev/null || fail "openssl is not installed (scripts/setup.sh installs it)"
  for name in "$@"; do
    # One day is enough.
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
      -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$dir/$name.key" -out "$dir/$name.crt" \
      >"$dir/$name.openssl.log" 2>&1 || fail "openssl req: $(cat "$dir/$name.openssl.log")"
  done
}

reco_test_dir() {
  local dir
  dir=$(mktemp -d) || fail "mktemp -d failed"
  printf -v "$1" %s "$dir"
  # shellcheck disable=SC2064  # the directory's name, now
  trap "_reco_test_dir_end $(printf %q "$dir")" EXIT
}

_reco_test_dir_end() {
  local pid
  for pid in "${RECO_SERVER_PIDS[@]}"; do
    pkill -KILL -P "$pid" 2>/dev/null || true  # the edge's two processes
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$1"
}
