#!/usr/bin/env bash
# Does a malloc swap buy `heap` as much as an arena? One reco_load run whose targets
# are `heap` under every installed malloc (LD_PRELOAD; glibc first, the baseline) and
# `arena_pool` under glibc, driven in interleaved rounds, so each malloc's figures come
# as paired per-round ratios to heap-on-glibc (median [min-max]) -- not as columns of
# separate runs, which is all bench/matrix.sh can give for this question.
#
#   scripts/malloc_swap.sh [--short] [--build DIR] [--out DIR] [--profiles "realistic compact"]
#                          [--items N]
#
# Full (default): 5 rounds x (1 s warm-up + 4 s) per target and text profile, about
# 4 min for 2 profiles. --short: 1 round x (0.2 s + 0.5 s), realistic text only (the CI
# test malloc_swap_short; its figures are indicative only). Writes, per profile,
# DIR/swap-PROFILE.json (reco_load's report) and .txt, and prints the paired ratios
# (scripts/lib/paired_ratios.py). A malloc that is not installed is skipped, said so.
# --items N (default 200): items per reply; above 1,000, one connection with 4 calls
# in flight and servers that let it use the whole reply budget (as scripts/scaling.sh).
#
# glibc tuned without code: each GLIBC_VARIANTS entry NAME=TUNABLES (default
# "mxfast0=glibc.malloc.mxfast=0": no fastbins) adds heap-glibc-NAME and
# arena_pool-glibc-NAME, servers started with GLIBC_TUNABLES=TUNABLES (their stats
# name the malloc "glibc(TUNABLES)"). GLIBC_VARIANTS="" leaves them out.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/mallocs.sh"
. "$root/scripts/lib/reco_servers.sh"
. "$root/scripts/lib/machine_load.sh"
. "$root/scripts/lib/script_flags.sh"

short=0 build=$root/build out="" profiles="realistic compact" items=200
parse_flags "$0" "--short! --build --out --profiles --items" "$@"
[[ $items =~ ^[1-9][0-9]*$ ]] && [ "$items" -le 10000 ] ||
  { echo "malloc_swap.sh: --items: '$items' is not a whole number in 1-10000" >&2; exit 2; }
# Replies of over 1,000 items: 1 connection x 4 calls in flight, and servers whose one
# connection may use the whole reply budget (as scripts/scaling.sh), so no call is
# refused for the budget.
server_flags=() size_flags=(--items "$items")
if [ "$items" -gt 1000 ]; then
  server_flags=(--max_connection_budget_share 1 --max_client_budget_share 1)
  size_flags+=(--connections 1 --concurrency 4 --threads 1)
fi
for p in $profiles; do
  case $p in realistic|compact) ;; *) echo "malloc_swap.sh: --profiles: unknown profile '$p'" >&2; exit 2 ;; esac
done
for bin in server/reco_server client/reco_load; do
  [ -x "$build/$bin" ] || { echo "malloc_swap.sh: $build/$bin is missing: build first (scripts/build.sh)" >&2; exit 2; }
done
if sanitized_build "$build/server/reco_server"; then
  echo "malloc_swap.sh: $build is a sanitizer build; its runtime must come before any LD_PRELOAD" >&2; exit 2
fi
if [ $short -eq 1 ]; then
  load_flags=(--rounds 1 --warmup 0.2s --duration 0.5s); profiles=realistic
else
  load_flags=(--rounds 5 --warmup 1s --duration 4s)
fi
out=${out:-$root/results/malloc-swap-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
trap stop_reco_servers EXIT
trap 'exit 130' INT TERM

targets=()
for m in $MALLOCS; do
  if ! lib=$(malloc_library "$m" 2>"$out/skipped-$m.txt"); then
    echo "malloc_swap.sh: $m SKIPPED: $(cat "$out/skipped-$m.txt")"
    continue
  fi
  rm -f "$out/skipped-$m.txt"
  start_reco_server --preload "$lib" "$out/server-heap-$m.log" "$build/server/reco_server" --mode heap "${server_flags[@]}" || exit 1
  targets+=(--target "heap-$m=127.0.0.1:$SERVER_PORT")
done
start_reco_server --preload "" "$out/server-arena_pool-glibc.log" "$build/server/reco_server" --mode arena_pool "${server_flags[@]}" || exit 1
targets+=(--target "arena_pool-glibc=127.0.0.1:$SERVER_PORT")
for variant in ${GLIBC_VARIANTS-mxfast0=glibc.malloc.mxfast=0}; do
  name=${variant%%=*} tunables=${variant#*=}
  [ -n "$name" ] && [ "$tunables" != "$variant" ] ||
    { echo "malloc_swap.sh: GLIBC_VARIANTS: '$variant' is not NAME=TUNABLES" >&2; exit 2; }
  for mode in heap arena_pool; do
    GLIBC_TUNABLES=$tunables start_reco_server --preload "" "$out/server-$mode-glibc-$name.log" \
      "$build/server/reco_server" --mode "$mode" "${server_flags[@]}" || exit 1
    targets+=(--target "$mode-glibc-$name=127.0.0.1:$SERVER_PORT")
  done
done

echo "malloc_swap.sh: $(machine_cpus);" \
     "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for profile in $profiles; do
  echo "malloc_swap.sh: reco_load, $profile text: ${size_flags[*]} ${load_flags[*]}"
  "$build/client/reco_load" "${targets[@]}" --profile "$profile" "${size_flags[@]}" "${load_flags[@]}" --quiet \
    --json "$out/swap-$profile.json" >"$out/swap-$profile.txt" 2>&1 \
    || { echo "malloc_swap.sh: reco_load failed ($profile):" >&2; cat "$out/swap-$profile.txt" >&2; exit 1; }
  /usr/bin/python3 "$root/scripts/lib/paired_ratios.py" "$out/swap-$profile.json" heap-glibc | sed 's/^/  /'
done
echo "malloc_swap.sh: raw results in $out"
