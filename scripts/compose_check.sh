#!/usr/bin/env bash
# Runs `docker compose up` for real and checks its outcome: the images build, the
# five servers become healthy, the load service exits 0, and ./results holds the
# JSON and HTML reports with all five targets. Then a short load through the edge
# (--profile edge, docker/test/edge-load.yaml): served by arena_pool behind nghttpx. Then runs it with three arena_pool
# replicas (`--scale arena_pool=3`, a short load from docker/test/short-load.yaml):
# arena_pool stays one target, every replica must have served a share of its calls,
# and the replicas' server RPCs must add up to the target's. Then runs it again with
# one server given a bad flag (docker/test/bad-server.yaml): compose must fail,
# quickly, with the server's own error line in its output.
#
# Where no Docker engine runs (these CI machines), the shared compose-up tool runs
# the compose file with podman; give its path in COMPOSE_UP (default:
# ../shared/tools/compose-up beside the repository). With a Docker engine, set
# COMPOSE_UP=docker-compose-native to use `docker compose` directly.
set -euo pipefail
cd "$(dirname "$0")/.."
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
compose_load_run() {
  local out rc=0
  out=$(mktemp)
  compose "$@" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    if grep -q "load-1 exited with code 0" "$out"; then
      echo "compose_check: note: docker compose exited $rc after the load exited 0 (judged by the load's exit)"
    else
      rm -f "$out"
      echo "compose_check: FAIL: docker compose exited $rc and the load did not exit 0" >&2
      exit 1
    fi
  fi
  rm -f "$out"
}
if [ "$compose_up" != docker-compose-native ]; then
  [ -x "$compose_up" ] || { echo "compose_check: $compose_up not found (set COMPOSE_UP)" >&2; exit 1; }
  # podman's netavark network backend needs iptables, which a minimal Debian lacks.
  if ! command -v iptables >/dev/null; then
    apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends iptables >/dev/null
  fi
fi
compose_load_run -f compose.yaml
/usr/bin/python3 - <<'PY'
import json, sys
doc = json.load(open("results/report.json"))
html = open("results/report.html").read()
names = [t["name"] for t in doc["targets"]]
assert names == ["heap", "reuse", "arena", "arena_pool", "fragments"], names
for t in doc["targets"]:
    c = t["client"]
    assert c["ok"] > 0 and not c["errors_by_code"], (t["name"], c["errors_by_code"])
    assert c["wrong_content"] == 0 and c["wrong_item_count"] == 0, t["name"]
    assert t["name"] in html, t["name"]
assert "<svg" in html
print("compose_check: load exited 0; results/report.json and report.html hold", ", ".join(names))
PY

rm -rf results
compose_load_run -f compose.yaml -f docker/test/short-load.yaml -- --scale arena_pool=3
/usr/bin/python3 - <<'PY'
import json
doc = json.load(open("results/report.json"))
names = [t["name"] for t in doc["targets"]]
assert names == ["heap", "reuse", "arena", "arena_pool", "fragments"], names
pool = doc["targets"][names.index("arena_pool")]
replicas = pool.get("replicas", [])
addresses = [r["address"] for r in replicas]
assert len(set(addresses)) == 3, f"arena_pool: want 3 replicas, the report has {addresses}"
rpcs = [r.get("rpcs", 0) for r in replicas]
assert all(n > 0 for n in rpcs), f"arena_pool: a replica served nothing: {dict(zip(addresses, rpcs))}"
assert sum(rpcs) == pool["server"]["rpcs"], (rpcs, pool["server"]["rpcs"])
assert pool["client"]["ok"] > 0 and not pool["client"]["errors_by_code"], pool["client"]["errors_by_code"]
shares = ", ".join(f"{a} {n}" for a, n in zip(addresses, rpcs))
print(f"compose_check: --scale arena_pool=3: one target, every replica served (server RPCs {shares})")
PY

# The edge profile: only load, the edge and arena_pool start (the service is named);
# a short load through the edge must be served.
rm -rf results
compose_load_run -f compose.yaml -f docker/test/edge-load.yaml --profile edge -- load
/usr/bin/python3 - <<'PY'
import json
doc = json.load(open("results/report.json"))
names = [t["name"] for t in doc["targets"]]
assert names == ["edge"], names
t = doc["targets"][0]
assert t["client"]["ok"] > 0 and not t["client"]["errors_by_code"], t["client"]
assert t["client"]["wrong_content"] == 0 and t["client"]["wrong_item_count"] == 0
assert t["server"]["mode"] == "arena_pool" and t["server"]["rpcs"] > 0, t["server"]
print(f"compose_check: --profile edge: {t['client']['ok']} calls through the edge to arena_pool, all byte-exact")
PY

log=$(mktemp)
if COMPOSE_TIMEOUT=600 compose -f compose.yaml -f docker/test/bad-server.yaml >"$log" 2>&1; then
  echo "compose_check: FAIL: compose succeeded although a server had a bad flag" >&2; exit 1
fi
grep -q -- "--mode=stack is not one of" "$log" || { echo "compose_check: FAIL: the server's error line is missing:" >&2; tail -20 "$log" >&2; exit 1; }
grep -Eq "dependency failed to start|exited with code 2" "$log" || { echo "compose_check: FAIL: compose did not report the failed server:" >&2; tail -20 "$log" >&2; exit 1; }
echo "compose_check: a server with a bad flag made compose fail with its error line"
rm -f "$log"
