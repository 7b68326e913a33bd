# Shared by the server's shell tests: start reco_server on 127.0.0.1:0 and read its
# port from the one line it prints. Sourced, not run.
#   start_server BINARY LOGPREFIX [FLAGS...]  -> sets SERVER_PID and SERVER_PORT
#   stop_server                               -> SIGTERM, waits, sets SERVER_RC

fail() { echo "FAIL: $*" >&2; exit 1; }

start_server() {
  local bin=$1 log=$2
  shift 2
  # Remove the old log first: the shell may not have truncated it yet when the loop
  # below reads it, and a stale line would give a dead server's port.
  rm -f "$log.out" "$log.err"
  "$bin" --listen 127.0.0.1:0 "$@" >"$log.out" 2>"$log.err" &
  SERVER_PID=$!
  SERVER_PORT=
  for _ in $(seq 100); do
    SERVER_PORT=$(sed -n 's/^reco_server: listening on 127\.0\.0\.1:\([0-9][0-9]*\) mode=.*$/\1/p' "$log.out" 2>/dev/null)
    [ -n "$SERVER_PORT" ] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || fail "reco_server exited early: $(cat "$log.err")"
    sleep 0.1
  done
  kill -TERM "$SERVER_PID"
  fail "reco_server printed no listening line within 10 s"
}

stop_server() {
  kill -TERM "$SERVER_PID"
  SERVER_RC=0
  # Bounded: the shutdown deadline is 5 s by default.
  for _ in $(seq 150); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$SERVER_PID" 2>/dev/null && { kill -KILL "$SERVER_PID"; fail "reco_server ignored SIGTERM for 15 s"; }
  wait "$SERVER_PID" || SERVER_RC=$?
}

# make_cert DIR NAME: a self-signed certificate for localhost and 127.0.0.1, made now
# (keys are never committed), as DIR/NAME.crt and DIR/NAME.key. One day is enough.
make_cert() {
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    -keyout "$1/$2.key" -out "$1/$2.crt" >"$1/$2.openssl.log" 2>&1 || fail "openssl req: $(cat "$1/$2.openssl.log")"
}
