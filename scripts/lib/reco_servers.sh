# Source this file. Starts reco_server processes on free 127.0.0.1 ports and stops
# them all; used by scripts/run.sh and bench/matrix.sh.
#   start_reco_server BINARY LOG PRELOAD [FLAGS...]
#       starts BINARY --listen 127.0.0.1:0 FLAGS (LD_PRELOAD=PRELOAD when not empty),
#       waits for its "listening on" line, sets SERVER_PORT and adds the pid to
#       RECO_SERVER_PIDS; on failure prints the log and returns 1.
#       Call it directly, not in $(...): a subshell would lose the pid.
#   stop_reco_servers   SIGTERM to every server started, then waits for them.
RECO_SERVER_PIDS=()

start_reco_server() {
  local bin=$1 log=$2 preload=$3 pid
  shift 3
  rm -f "$log"
  LD_PRELOAD=$preload "$bin" --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
  pid=$!
  RECO_SERVER_PIDS+=("$pid")
  SERVER_PORT=""
  for _ in $(seq 100); do
    SERVER_PORT=$(sed -n 's/^reco_server: listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$log")
    [ -n "$SERVER_PORT" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "reco_server $* did not start:" >&2
  cat "$log" >&2
  return 1
}

stop_reco_servers() {
  local pid
  for pid in "${RECO_SERVER_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${RECO_SERVER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  RECO_SERVER_PIDS=()
}
