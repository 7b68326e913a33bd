#!/usr/bin/env bash
# Measure a service that is not reco: the example Inbox service (examples/inbox/) in
# its three variants of one handler -- heap, pooled_arena (patterns/
# pooled_arena_allocator.h), spliced (patterns/spliced_reply.h) -- driven by reco_load
# through --call, the method's types from the .proto, each server reporting its own
# allocations, CPU and memory per RPC through the stats library (stats/). The same
# command line drives your own service: see docs/your-service.md.
#
#   scripts/your_service.sh [BUILD_DIR]    (default: build)
#   env: ROUNDS=3 DURATION=3 WARMUP=1 THREADS=50 (threads per page) LONG_TEXT=false
#        SCHEMA=proto|protoset|reflection (where reco_load finds the method's types)
#        JSON=FILE HTML=FILE (reco_load's reports)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-3} seconds=${DURATION:-3} warmup=${WARMUP:-1} threads=${THREADS:-50}
long_text=${LONG_TEXT:-false} schema=${SCHEMA:-proto}
require_positive_integers rounds seconds warmup threads
case $long_text in true|false) ;; *) echo "LONG_TEXT=$long_text must be true or false" >&2; exit 2 ;; esac
server="$build/examples/inbox/inbox_server"
[ -x "$server" ] || { echo "$server is missing: run scripts/build.sh first" >&2; exit 1; }
[ -x "$build/client/reco_load" ] || { echo "$build/client/reco_load is missing: run scripts/build.sh first" >&2; exit 1; }
measurement_work_dir work

case $schema in
  proto) types=(--proto examples/inbox/inbox.proto) ;;
  protoset)
    protoc --include_imports --descriptor_set_out="$work/inbox.protoset" -Iexamples/inbox examples/inbox/inbox.proto
    types=(--protoset "$work/inbox.protoset") ;;
  reflection) types=() ;;
  *) echo "SCHEMA=$schema must be proto, protoset or reflection" >&2; exit 2 ;;
esac

targets=()
for variant in heap pooled_arena spliced; do
  start_reco_server "$work/$variant.log" "$server" --variant "$variant" || exit 1
  targets+=(--target "$variant=127.0.0.1:$SERVER_PORT")
done
reports=()
[ -z "${JSON:-}" ] || reports+=(--json "$JSON")
[ -z "${HTML:-}" ] || reports+=(--html "$HTML")

"$build/client/reco_load" --call inbox.v1.Inbox/ListThreads "${types[@]}" \
  --data "{\"account\": \"load@example.com\", \"threads\": $threads, \"long_text\": $long_text}" \
  "${targets[@]}" --rounds "$rounds" --duration "$seconds" --warmup "$warmup" "${reports[@]}"
