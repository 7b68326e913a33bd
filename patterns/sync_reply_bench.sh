#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU per call of a synchronous handler's reply options (sync_reply_bench.cc), with
# glibc's malloc as it is and with the environment-only option: the glibc tunable
# mxfast=0 and the LD_PRELOADed mallocs Debian 12 packages (libmimalloc2.0,
# libjemalloc2, libtcmalloc-minimal4; missing ones are skipped).
#
#   cmake -S patterns -B /tmp/build-sync && cmake --build /tmp/build-sync -j2 --target patterns_sync_reply_bench
#   patterns/sync_reply_bench.sh /tmp/build-sync/patterns_sync_reply_bench 15 --mode=work --iters=300
#
# A round runs the bench once per environment (one process each, the order rotated
# every round); inside each process every option runs --iters calls. A ratio is an
# (environment, option)'s CPU per call over glibc's (a) in the same round; the table
# gives the median [min-max] over the rounds. Bounded: rounds x environments runs.
set -euo pipefail

bench=${1:?usage: sync_reply_bench.sh BENCH_BINARY [ROUNDS] [bench flags...]}
rounds=${2:-15}
shift $(( $# >= 2 ? 2 : 1 ))
libdir=/usr/lib/x86_64-linux-gnu

names=(glibc mxfast=0)
envs=("" "GLIBC_TUNABLES=glibc.malloc.mxfast=0")
for pair in mimalloc:libmimalloc.so.2 jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4; do
  if [[ -e $libdir/${pair#*:} ]]; then
    names+=("${pair%%:*}")
    envs+=("LD_PRELOAD=$libdir/${pair#*:}")
  fi
done

echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; bench flags: $* ; rounds: $rounds"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
n=${#names[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    e=$(( (k + r) % n ))
    # shellcheck disable=SC2086
    env ${envs[e]} "$bench" --rounds=1 "$@" | sed -n "s/^round 0: //p" |
      tr ' ' '\n' | grep '=' | sed "s/^/$r ${names[e]} /" >>"$results"
  done
done

# lines: ROUND ENV OPTION=NS
awk -v order="${names[*]}" '
  { split($3, kv, "="); ns[$1, $2, kv[1]] = kv[2]; opts[kv[1]] = 1; rounds[$1] = 1 }
  function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
  function median(a, n) { return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
  END {
    ne = split(order, envs, " ")
    printf "%-9s %-6s %14s   %s\n", "malloc", "option", "median ns/call", "ratio vs glibc (a): median [min-max]"
    for (i = 1; i <= ne; i++) for (o in opts) {
      m = 0; delete t; delete q
      for (r in rounds) if ((r, envs[i], o) in ns && (r, "glibc", "a") in ns) {
        m++; t[m] = ns[r, envs[i], o]; q[m] = ns[r, envs[i], o] / ns[r, "glibc", "a"]
      }
      if (m == 0) continue
      sort(t, m); sort(q, m)
      printf "%-9s (%s)    %14.0f   x%.2f [%.2f-%.2f] (%d rounds)\n", envs[i], o, median(t, m), median(q, m), q[1], q[m], m
    }
  }' "$results" | { read -r header; echo "$header"; sort -s -b -k2,2; }
