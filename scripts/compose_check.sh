#!/usr/bin/env bash
# Runs `docker compose up` for real and checks its outcome: the images build, the
# six servers become healthy, the load service exits 0 (a short load), and ./results
# holds the JSON and HTML reports with all six targets. Then a short load through the edge
# (--profile edge, docker/test/edge-load.yaml): served by arena_pool_edge behind the edge (haproxy, nghttpx). Then runs it with three arena_pool
# replicas (`--scale arena_pool=3`, a short load from docker/test/short-load.yaml):
# arena_pool stays one target, every replica must have served a share of its calls,
# and the replicas' server RPCs must add up to the target's. The same run has the
# `monitoring` profile on (docker/test/monitoring.yaml): its load starts only once
# Prometheus has scraped reco_rpcs_total from every server by its scrape job, all three
# arena_pool replicas included, or the run fails naming the server Prometheus lacks;
# it costs the Prometheus image's build and ~10 s. Then runs it again with
# one server given a bad flag (docker/test/bad-server.yaml): compose must fail,
# quickly, with the server's own error line in its output. The load runs without
# --fail_on_disturbed (a busy CI machine must not fail it), so the check asks instead
# that a run with disturbed rounds said so in its last line.
#
# Where no Docker engine runs (these CI machines), the shared compose-up tool runs
# the compose file with podman; give its path in COMPOSE_UP (default:
# ../shared/tools/compose-up beside the repository). With a Docker engine, set
# COMPOSE_UP=docker-compose-native to use `docker compose` directly.
#
#   scripts/compose_check.sh      (no arguments; env: COMPOSE_UP)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/script_flags.sh
parse_flags "$0" "" "$@"  # --help, or exit 2: before results/ is deleted
compose_up=${COMPOSE_UP:-$(cd .. && pwd)/shared/tools/compose-up}
rm -rf results
up_args=(up --build --abort-on-container-exit --exit-code-from load)
compose() {  # compose [-f FILE ...] [-- UP ARGS...] -- runs `docker compose <files> up ... <up args>`
  local files=() more=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do files+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; more=("$@"); }
  if [ "$compose_up" = docker-compose-native ]; then
    docker compose "${files[@]}" "${up_args[@]}" "${more[@]}"
  else
    "$compose_up" . -- "${files[@]}" "${up_args[@]}" "${more[@]}"
  fi
}
# compose_load_run FILES... [-- UP ARGS]: a run whose load must succeed. Judged by the
# load container's own exit line: compose 2.26.1 (what compose-up uses) once returned
# 137 here after "load-1 exited with code 0" and every container stopped cleanly (1 of
# 5 scaled runs; its --exit-code-from could take a stopping container's code, fixed
# upstream in 2.27, docker/compose#11715). Any other failure still fails the check.
# The run's output stays in $run_log until the next run, for checks of its own lines.
run_log=$(mktemp)
trap 'rm -f "$run_log"' EXIT
compose_load_run() {
  local out=$run_log rc=0
  compose "$@" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    if grep -q "load-1 exited with code 0" "$out"; then
      echo "compose_check: note: docker compose exited $rc after the load exited 0 (judged by the load's exit)"
    else
      # The monitoring check's verdict, once (compose may print a container's log twice).
      sed -n 's/.*prometheus_scraped: FAIL: /compose_check: FAIL: monitoring: /p' "$out" | awk '!seen[$0]++' >&2
      echo "compose_check: FAIL: docker compose exited $rc and the load did not exit 0" >&2
      exit 1
    fi
  fi
  check_disturbed_line "$out"
}
# check_disturbed_line OUTPUT: when results/report.json has disturbed rounds, the
# load's output carries reco_load's summary line (client/noise_guard.h) for them.
check_disturbed_line() {
  local disturbed
  disturbed=$(/usr/bin/python3 -c 'import json, sys
print(sum(len(t.get("disturbed_rounds", [])) for t in json.load(open(sys.argv[1]))["targets"]))' results/report.json)
  [ "$disturbed" = 0 ] && return 0
  grep -E "reco_load: (all [0-9]+|[0-9]+ of [0-9]+) measured rounds? (was|were) disturbed|the only measured round was disturbed" "$1" ||
    { echo "compose_check: FAIL: $disturbed disturbed round(s) in the report, no summary line from reco_load" >&2; exit 1; }
  echo "compose_check: note: the machine was busy during the load ($disturbed disturbed round(s)), said so above"
}
if [ "$compose_up" != docker-compose-native ]; then
  [ -x "$compose_up" ] || { echo "compose_check: $compose_up not found (set COMPOSE_UP)" >&2; exit 1; }
  # podman's netavark network backend needs iptables, which a minimal Debian lacks.
  if ! command -v iptables >/dev/null; then
    apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends iptables >/dev/null
  fi
fi
# The load's own flags shortened (docker/test/short-load.yaml): what is checked --
# six targets served byte-exact, both reports written -- does not depend on how long
# it runs, and the default's 3 rounds of 5 s per target took about 110 s of the step.
compose_load_run -f compose.yaml -f docker/test/short-load.yaml
/usr/bin/python3 scripts/compose_check_reports.py all results

# With the monitoring profile: the load waits for Prometheus to have scraped every
# server and each replica (docker/test/prometheus_scraped.sh says how).
rm -rf results
replicas=3  # compose_check_reports.py scaled expects three
ARENA_POOL_REPLICAS=$replicas compose_load_run -f compose.yaml -f docker/test/short-load.yaml \
  -f docker/test/monitoring.yaml --profile monitoring -- --scale arena_pool=$replicas
/usr/bin/python3 scripts/compose_check_reports.py scaled results
grep "prometheus_scraped: ok:" "$run_log" ||
  { echo "compose_check: FAIL: the monitoring profile did not run (no prometheus_scraped line)" >&2; exit 1; }

# The edge profile: only load, the edge and arena_pool_edge start (the service is named);
# a short load through the edge must be served.
rm -rf results
compose_load_run -f compose.yaml -f docker/test/edge-load.yaml --profile edge -- load
/usr/bin/python3 scripts/compose_check_reports.py edge results

log=$(mktemp)
if COMPOSE_TIMEOUT=600 compose -f compose.yaml -f docker/test/bad-server.yaml >"$log" 2>&1; then
  echo "compose_check: FAIL: compose succeeded although a server had a bad flag" >&2; exit 1
fi
grep -q -- "--mode=stack is not one of" "$log" || { echo "compose_check: FAIL: the server's error line is missing:" >&2; tail -20 "$log" >&2; exit 1; }
grep -Eq "dependency failed to start|exited with code 2" "$log" || { echo "compose_check: FAIL: compose did not report the failed server:" >&2; tail -20 "$log" >&2; exit 1; }
echo "compose_check: a server with a bad flag made compose fail with its error line"
rm -f "$log"
