#!/bin/sh
# prometheus_scraped.sh: run by docker/test/monitoring.yaml's `monitoring_check`
# service (the Prometheus image, for its promtool). Waits until Prometheus holds
# reco_rpcs_total{code="OK"} from every reco server of compose.yaml, told apart by
# the scrape job (arena_pool and arena_pool_async share a mode label), with
# ARENA_POOL_REPLICAS instances for arena_pool (each replica its own target through
# dns_sd_configs). Then it marks /tmp/scraped, which its healthcheck (and so the
# load's start) waits for, and idles until compose stops it: under
# --abort-on-container-exit, a container that exits ends the run.
# Gives up after DEADLINE seconds (default 90), naming what is missing, and exits 1.
set -u
prometheus=${PROMETHEUS:-http://prometheus:9090}
want="heap=1 reuse=1 arena=1 arena_pool=${ARENA_POOL_REPLICAS:-1} arena_pool_async=1 fragments=1"
end=$(($(date +%s) + ${DEADLINE:-90}))
while :; do
  # One line per job: {job="heap"} => 1 @[1796225641.182]
  got=$(promtool query instant "$prometheus" 'count by (job) (reco_rpcs_total{code="OK"})' 2>&1)
  missing=""
  for w in $want; do
    job=${w%=*} n=${w#*=}
    have=$(printf '%s\n' "$got" | sed -n "s/^{job=\"$job\"} => \([0-9]*\) .*/\1/p")
    [ "${have:-0}" -ge "$n" ] || missing="$missing $job (${have:-0} of $n instances)"
  done
  [ -z "$missing" ] && break
  if [ "$(date +%s)" -ge "$end" ]; then
    echo "prometheus_scraped: FAIL: after ${DEADLINE:-90} s, Prometheus lacks reco_rpcs_total from:$missing"
    echo "prometheus_scraped: its last answer: $got"
    exit 1
  fi
  sleep 1
done
echo "prometheus_scraped: ok: Prometheus scraped every server: $(printf '%s\n' "$got" |
  sed -n 's/^{job="\([a-z_]*\)"} => \([0-9]*\) .*/\1=\2/p' | paste -sd' ')"
touch /tmp/scraped
trap 'exit 0' TERM INT
while :; do sleep 1 & wait $!; done
