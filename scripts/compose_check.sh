#!/usr/bin/env bash
# Runs `docker compose up` for real and checks its outcome: the images build, the
# four servers become healthy, the load service exits 0, and ./results holds the
# JSON and HTML reports with all four targets.
#
# Where no Docker engine runs (these CI machines), the shared compose-up tool runs
# the compose file with podman; give its path in COMPOSE_UP (default:
# ../shared/tools/compose-up beside the repository). With a Docker engine, set
# COMPOSE_UP=docker-compose-native to use `docker compose` directly.
set -euo pipefail
cd "$(dirname "$0")/.."
compose_up=${COMPOSE_UP:-$(cd .. && pwd)/shared/tools/compose-up}
rm -rf results
if [ "$compose_up" = docker-compose-native ]; then
  docker compose up --build --abort-on-container-exit --exit-code-from load
else
  [ -x "$compose_up" ] || { echo "compose_check: $compose_up not found (set COMPOSE_UP)" >&2; exit 1; }
  # podman's netavark network backend needs iptables, which a minimal Debian lacks.
  if ! command -v iptables >/dev/null; then
    apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends iptables >/dev/null
  fi
  "$compose_up" .
fi
/usr/bin/python3 - <<'PY'
import json, sys
doc = json.load(open("results/report.json"))
html = open("results/report.html").read()
names = [t["name"] for t in doc["targets"]]
assert names == ["heap", "reuse", "arena", "arena_pool"], names
for t in doc["targets"]:
    c = t["client"]
    assert c["ok"] > 0 and not c["errors_by_code"], (t["name"], c["errors_by_code"])
    assert c["wrong_content"] == 0 and c["wrong_item_count"] == 0, t["name"]
    assert t["name"] in html, t["name"]
assert "<svg" in html
print("compose_check: load exited 0; results/report.json and report.html hold", ", ".join(names))
PY
