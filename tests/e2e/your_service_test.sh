#!/usr/bin/env bash
# reco_load against a service it was not written for: the example Inbox service in its
# three variants (heap, pooled_arena, spliced), each reporting through the stats
# library. The method's types come from the .proto, from a protoset and from the
# server's reflection; the heap build's allocations per RPC equal what the example's
# own test counts in-process with another malloc counter, and the pooled arena's are
# 0. Every bad --call input exits 2 before any load, naming what is wrong.
#   tests/e2e/your_service_test.sh SOURCE_ROOT INBOX_SERVER RECO_LOAD INBOX_ALLOCATIONS_TEST RECO_SERVER
set -uo pipefail
src=$1 inbox=$2 load=$3 allocations_test=$4 reco_server=$5
. "$src/scripts/lib/reco_servers.sh"
reco_test_dir tmp
proto="$src/examples/inbox/inbox.proto"

# The other counter: the example's allocation test, in-process (patterns/testing/malloc_counter).
heap_allocs=$("$allocations_test" --gtest_filter='InboxAllocations.HeapBuildMallocsEveryObject' |
  sed -n 's/^heap, short text, 50 threads: \([0-9][0-9]*\) .*/\1/p')
[ -n "$heap_allocs" ] || fail "the example's allocation test printed no heap count"
# Under ASan/TSan the sanitizer's malloc comes before the stats library's counter,
# which then sees nothing (the snapshot says so): everything but the counts is checked.
if sanitized_build "$inbox"; then heap_allocs=-; fi

targets=()
for variant in heap pooled_arena spliced; do
  start_reco_server "$tmp/$variant.log" "$inbox" --variant "$variant" || fail "inbox_server --variant $variant"
  targets+=(--target "$variant=127.0.0.1:$SERVER_PORT")
done
data='{"account": "e2e@example.com", "threads": 50}'
call=(--call inbox.v1.Inbox/ListThreads --data "$data" --warmup 300ms --quiet)

# expect_load RC TEXT ARGS...: reco_load exits RC, and (when TEXT is not empty) says it.
expect_load() { expect_run "$1" "$2" "$tmp" "$load" "${@:3}"; }

expect_load 0 "" "${targets[@]}" "${call[@]}" --proto "$proto" --total 300 --rounds 2 --json "$tmp/proto.json"
/usr/bin/python3 "$src/tests/e2e/check_your_service_report.py" "$tmp/proto.json" 300 "$heap_allocs" ||
  fail "report (--proto): $(cat "$tmp/l.out")"
grep -q "build allocs/RPC" "$tmp/l.out" || fail "no build row in the table"
grep -q "^left out, no target reported them: .*release p99 (us)" "$tmp/l.out" ||
  fail "the rows no inbox server fills are not named once: $(cat "$tmp/l.out")"
grep -q "^release p99 (us) " "$tmp/l.out" && fail "a row of n/a for every target"
echo "ok: --proto, three variants, heap $heap_allocs build allocs/RPC as counted in-process, pooled_arena 0"

protoc --include_imports --descriptor_set_out="$tmp/inbox.protoset" -I"$src/examples/inbox" "$proto" ||
  fail "protoc could not write the protoset"
expect_load 0 "" "${targets[@]}" "${call[@]}" --protoset "$tmp/inbox.protoset" --total 100 --rounds 1 \
  --json "$tmp/protoset.json"
/usr/bin/python3 "$src/tests/e2e/check_your_service_report.py" "$tmp/protoset.json" 100 "$heap_allocs" ||
  fail "report (--protoset)"
expect_load 0 "" "${targets[@]}" "${call[@]}" --total 100 --rounds 1 --json "$tmp/reflection.json"
/usr/bin/python3 "$src/tests/e2e/check_your_service_report.py" "$tmp/reflection.json" 100 "$heap_allocs" ||
  fail "report (reflection)"
echo "ok: --protoset and reflection"

# JSON Lines: three requests cycled through (10, 20, 30 threads): the server built 20
# threads on average, so heap's build allocations per RPC differ from the 50-thread one.
printf '{"threads": 10}\n\n{"threads": 20}\n{"threads": 30}\n' >"$tmp/requests.jsonl"
heap_target=(--target "${targets[1]}")  # targets: --target heap=... --target pooled_arena=... ...
expect_load 0 "" "${heap_target[@]}" --call inbox.v1.Inbox/ListThreads --proto "$proto" --data_file "$tmp/requests.jsonl" \
  --total 90 --rounds 1 --warmup 0 --concurrency 1 --connections 1 --metadata x-trace=e2e --timeout 5s --quiet
grep -q "3 request(s)" "$tmp/l.out" || fail "the JSON Lines file did not give 3 requests: $(cat "$tmp/l.out")"
echo "ok: --data_file with JSON Lines, --metadata, --timeout"

# The pool's exhaustion as a row of its own: the example's pooled arenas (at most 64)
# with 200 calls in flight; heap has no pool (its row is n/a, null in the JSON).
pooled_target=(--target "${targets[3]}")
expect_load 0 "" "${heap_target[@]}" "${pooled_target[@]}" "${call[@]}" --proto "$proto" --total 1000 --rounds 1 \
  --concurrency 200 --connections 2 --json "$tmp/exhausted.json"
read -r heap_unpooled pooled_unpooled < <(/usr/bin/python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["targets"]
print(*(x["figures"]["server_pool_unpooled"] for x in t))' "$tmp/exhausted.json")
[ "$heap_unpooled" = None ] && [ "${pooled_unpooled%.*}" -gt 0 ] 2>/dev/null ||
  fail "pool exhaustion: heap $heap_unpooled (want null), pooled_arena $pooled_unpooled (want > 0)"
grep -q "^leases unpooled (pool empty) " "$tmp/l.out" || fail "no row for the pool's exhaustion: $(cat "$tmp/l.out")"
echo "ok: the pooled arenas ran out $pooled_unpooled times with 200 calls in flight (64 arenas): a row of its own"

# Placeholders, as ghz writes them: {{.RequestNumber}} counts the run's calls from 0,
# so "threads" goes 990..999 (served) then 9910..9919 (over the page's 1000: refused).
expect_load 0 "" "${heap_target[@]}" --call inbox.v1.Inbox/ListThreads --proto "$proto" \
  --data '{"threads": 99{{.RequestNumber}}}' --metadata 'x-request-id={{.UUID}}' --total 20 --rounds 1 --warmup 0 \
  --concurrency 1 --connections 1 --max_error_rate 1 --quiet --json "$tmp/templated.json"
read -r ok refused < <(/usr/bin/python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["targets"][0]["rounds"][0]["client"]
print(c["ok"], c["errors_by_code"].get("INVALID_ARGUMENT", 0))' "$tmp/templated.json")
[ "$ok $refused" = "10 10" ] || fail "templated --data: want 10 OK and 10 INVALID_ARGUMENT, got $ok and $refused"
grep -q "a request per call from --data" "$tmp/l.out" || fail "the run line does not say the requests are templated"
echo "ok: --data and --metadata placeholders, one request number per call"

t0=("${heap_target[@]}")
expect_load 2 "has no method ListThread " "${t0[@]}" --call inbox.v1.Inbox/ListThread --proto "$proto"
# A server-streaming method of the user's service is driven: the message variants
# stream the page's threads (20 messages a call, each on a pooled arena); the spliced
# variant serves no WatchInbox, so its probe fails, exit 3, with UNIMPLEMENTED.
expect_load 0 "" "${t0[@]}" "${pooled_target[@]}" --call inbox.v1.Inbox/WatchInbox --proto "$proto" \
  --data '{"threads": 20}' --total 60 --rounds 1 --warmup 0 --concurrency 2 --connections 1 --quiet --json "$tmp/watch.json"
read -r per_call ok < <(/usr/bin/python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["targets"]
print(",".join(str(x["figures"]["messages_per_call"]) for x in t), sum(x["rounds"][0]["client"]["ok"] for x in t))' \
  "$tmp/watch.json")
[ "$per_call $ok" = "20,20 120" ] || fail "WatchInbox: messages/call $per_call (want 20 each), $ok calls OK (want 60 each)"
echo "ok: WatchInbox streamed, 20 messages a call on heap and pooled_arena"
expect_load 3 "UNIMPLEMENTED" --target "${targets[5]}" --call inbox.v1.Inbox/WatchInbox --proto "$proto"
expect_load 2 '"acount"' "${t0[@]}" --call inbox.v1.Inbox/ListThreads --proto "$proto" --data '{"acount": "x"}'
expect_load 2 "--proto" "${t0[@]}" --call inbox.v1.Inbox/ListThreads --proto "$tmp/missing.proto"
printf 'syntax = "proto3";\nimport "gone.proto";\n' >"$tmp/imports.proto"
expect_load 2 "gone.proto" "${t0[@]}" --call inbox.v1.Inbox/ListThreads --proto "$tmp/imports.proto"
protoc --include_imports --descriptor_set_out="$tmp/feed.protoset" -I"$src/patterns/testing" \
  "$src/patterns/testing/feed.proto" || fail "protoc feed.proto"
expect_load 2 "inbox.v1.Inbox" "${t0[@]}" --call inbox.v1.Inbox/ListThreads --protoset "$tmp/feed.protoset"
start_reco_server "$tmp/plain.log" "$reco_server" --reflection=false || fail "reco_server --reflection=false"
expect_load 2 "reflection" --target "plain=127.0.0.1:$SERVER_PORT" --call inbox.v1.Inbox/ListThreads
expect_load 2 "--items" "${t0[@]}" --call inbox.v1.Inbox/ListThreads --proto "$proto" --items 5
expect_load 2 "--data needs --call" "${t0[@]}" --data '{}'
expect_load 2 '--data: unknown placeholder "{{.RequestNum}}"' "${t0[@]}" --call inbox.v1.Inbox/ListThreads \
  --proto "$proto" --data '{"threads": {{.RequestNum}}}'
expect_load 2 '--metadata x-id: "{{" without its "}}"' "${t0[@]}" --call inbox.v1.Inbox/ListThreads \
  --proto "$proto" --metadata 'x-id={{.UUID'
grep -q "round 1" "$tmp/l.out" && fail "a bad flag ran load"
echo "ok: bad --call input exits 2 before any load"
echo PASS
