#!/usr/bin/env bash
# collect.sh: waits for the load Job of k8s/ to finish, reads each pod's JSON report
# back from its log (the lines between its two marker lines) and merges them with
# `reco_load merge` into one report: the table on stdout, report.json and
# report.html in --out.
#
#   k8s/collect.sh [--namespace reco-arena] [--job reco-load] [--out results/k8s] [--timeout 1200]
#
# Needs kubectl (KUBECTL=... to use another) pointed at the cluster, and reco_load
# on this machine (RECO_LOAD=..., default: reco_load on PATH, else build/client/reco_load).
# Exit status: 0 merged; 1 the Job failed, timed out or a pod printed no report;
# 2 bad flags; otherwise reco_load merge's.
set -euo pipefail
namespace=reco-arena job=reco-load out=results/k8s timeout_s=1200
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
fail() { echo "collect.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case $1 in
    --namespace|--job|--out|--timeout)
      [ $# -ge 2 ] || { echo "collect.sh: $1 needs a value" >&2; exit 2; }
      case $1 in --namespace) namespace=$2 ;; --job) job=$2 ;; --out) out=$2 ;; --timeout) timeout_s=$2 ;; esac
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "collect.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || { echo "collect.sh: --timeout must be a positive number of seconds, not '$timeout_s'" >&2; exit 2; }
kubectl=${KUBECTL:-kubectl}
here=$(cd "$(dirname "$0")" && pwd)
reco_load=${RECO_LOAD:-$(command -v reco_load || echo "$here/../build/client/reco_load")}
[ -x "$reco_load" ] || { echo "collect.sh: reco_load not found (build it, or set RECO_LOAD)" >&2; exit 2; }
k() { "$kubectl" -n "$namespace" "$@"; }

# Wait: succeeded == completions, or any failure, or the timeout.
start=$SECONDS
while :; do
  # Commas, not spaces: a count Kubernetes has not set yet is empty, and must stay in its place.
  IFS=, read -r completions succeeded failed < <(k get job "$job" \
    -o jsonpath='{.spec.completions},{.status.succeeded},{.status.failed}{"\n"}') ||
    fail "no Job $job in namespace $namespace (kubectl apply -k k8s/ first)"
  succeeded=${succeeded:-0} failed=${failed:-0}
  [ "$succeeded" = "$completions" ] && break
  if [ "$failed" != 0 ]; then
    echo "collect.sh: Job $job: $failed pod(s) failed; the end of each pod's log:" >&2
    for pod in $(k get pods -l job-name="$job" -o jsonpath='{.items[*].metadata.name}'); do
      echo "--- $pod" >&2
      k logs "$pod" -c load --tail 20 >&2 || true
    done
    exit 1
  fi
  [ $((SECONDS - start)) -lt "$timeout_s" ] || fail "Job $job: $succeeded of $completions done after ${timeout_s} s (--timeout)"
  echo "collect.sh: Job $job: $succeeded of $completions done, waiting ($((SECONDS - start)) s)" >&2
  sleep 10
done

mkdir -p "$out"
rm -f "$out"/part-*.json
parts=()
for pod in $(k get pods -l job-name="$job" -o jsonpath='{.items[*].metadata.name}'); do
  part="$out/part-$pod.json"
  # The JSON is the lines strictly between "==== reco_load report K begin ====" and
  # "... end ====" (reco_load's own output went to stderr, before them).
  k logs "$pod" -c load | awk '/^==== reco_load report .* end ====$/ {inside = 0}
                                inside {print}
                                /^==== reco_load report .* begin ====$/ {inside = 1}' >"$part"
  [ -s "$part" ] || fail "pod $pod printed no report between the marker lines (kubectl -n $namespace logs $pod -c load)"
  parts+=("$part")
done
[ ${#parts[@]} -gt 0 ] || fail "Job $job has no pods left to read (were they deleted?)"
echo "collect.sh: merging ${#parts[@]} reports from Job $job" >&2
"$reco_load" merge "${parts[@]}" --json "$out/report.json" --html "$out/report.html"
