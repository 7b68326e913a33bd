#!/usr/bin/env bash
# alloc_ledger --proto/--protoset: the user's own message. Bad input exits 2 with the
# flag named; a good sample (feed.v1.FeedResponse, one post, as FillFeed(1) writes it)
# prints the counts core/message_ledger_test.cc asserts for dynamic messages.
set -u
ledger=$1
here=$(cd "$(dirname "$0")" && pwd)
proto=$here/../patterns/testing/feed.proto
sample=$here/testdata/feed_one_post.json
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
expect_error() {  # expect_error WORD-IN-MESSAGE ARGS...
  local word=$1; shift
  local err rc
  err=$("$ledger" "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -ne 2 ] || ! grep -q -- "$word" <<<"$err"; then
    echo "FAIL: alloc_ledger $* exited $rc with: $err"; fails=$((fails + 1))
  fi
}
echo '{"posts":[{"likes":1}]}' >"$tmp/bad_field.json"
echo '{"requestId":' >"$tmp/not_json.json"
echo 'message Broken {' >"$tmp/broken.proto"
expect_error "FeedRequest" --proto "$proto" --message feed.v1.Nope --data_file "$sample"   # lists message names
expect_error "--message" --proto "$proto" --message feed.v1.Nope --data_file "$sample"
expect_error "--message" --proto "$proto" --data_file "$sample"
expect_error "--data_file" --proto "$proto" --message feed.v1.FeedResponse
expect_error "--data_file" --proto "$proto" --message feed.v1.FeedResponse --data_file "$tmp/missing.json"
expect_error "likes" --proto "$proto" --message feed.v1.FeedResponse --data_file "$tmp/bad_field.json"
expect_error "--data_file" --proto "$proto" --message feed.v1.FeedResponse --data_file "$tmp/not_json.json"
expect_error "not both" --proto "$proto" --protoset "$tmp/x.pb" --message feed.v1.FeedResponse --data_file "$sample"
expect_error "--proto" --message feed.v1.FeedResponse --data_file "$sample"
expect_error "--proto" --data_file "$sample"
expect_error "--items" --proto "$proto" --items 10 --message feed.v1.FeedResponse --data_file "$sample"
expect_error "--profile" --proto "$proto" --profile compact --message feed.v1.FeedResponse --data_file "$sample"
expect_error "fragments" --proto "$proto" --modes heap,fragments --message feed.v1.FeedResponse --data_file "$sample"
expect_error "arena_alias" --proto "$proto" --modes heap,arena_alias --message feed.v1.FeedResponse --data_file "$sample"
expect_error "--proto" --proto "$tmp/broken.proto" --message Broken --data_file "$sample"
expect_error "--proto" --proto "$tmp/absent.proto" --message feed.v1.FeedResponse --data_file "$sample"
expect_error "--protoset" --protoset "$tmp/absent.pb" --message feed.v1.FeedResponse --data_file "$sample"

check() {  # check WHAT JSON: the one-post feed's dynamic counts (message_ledger_test.cc)
  /usr/bin/python3 - "$2" <<'PY' || { echo "FAIL: $1"; fails=$((fails + 1)); }
import json, sys
d = json.loads(sys.argv[1])
assert d["message"] == "feed.v1.FeedResponse" and d["dynamic"] is True, d
assert d["shape"] == {"strings": 12, "long_strings": 0, "small_string_bytes": 15, "sub_messages": 6,
                      "repeated_fields": 4, "repeated_elements": 16}, d["shape"]
m = d["modes"]
assert sorted(m) == ["arena", "arena_pool", "heap", "reuse"], list(m)
assert (m["heap"]["build"]["allocs"], m["heap"]["release"]["frees"]) == (23, 23), m["heap"]
assert m["arena_pool"]["build"]["allocs"] == 0 and m["arena_pool"]["release"]["frees"] == 0, m["arena_pool"]
assert m["reuse"]["build"]["allocs"] == 11 + 4, m["reuse"]   # generated 11, + DynamicMessage::Clear's 4
assert d["dynamic_overhead"]["serialize"] == {"allocs": 16, "frees": 16}, d["dynamic_overhead"]
for mode in m.values():
    assert mode["serialize"]["allocs"] == 16, mode   # all of it the reflection serializer's
PY
}
out=$("$ledger" --proto "$proto" --message feed.v1.FeedResponse --data_file "$sample" --format json --cycles 2)
check "--proto run" "$out"
protoc --include_imports --descriptor_set_out="$tmp/feed.pb" -I"$(dirname "$proto")" feed.proto
out=$("$ledger" --protoset "$tmp/feed.pb" --message feed.v1.FeedResponse --data_file "$sample" --format json --cycles 2)
check "--protoset run" "$out"
# --import_path, repeated (absl alone would keep only the last): the proto found through the
# first; the second is a directory without it.
out=$("$ledger" --import_path "$(dirname "$proto")" --import_path "$(dirname "$0")" --proto feed.proto \
        --message feed.v1.FeedResponse --data_file "$sample" --format json --cycles 2)
check "--import_path run" "$out"
table=$("$ledger" --proto "$proto" --message feed.v1.FeedResponse --data_file "$sample" --modes arena_pool --cycles 2)
grep -q "12 strings, 0 longer than 15 bytes" <<<"$table" && grep -q "serialize: +16 allocs" <<<"$table" \
  || { echo "FAIL: table: $table"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "alloc_ledger --proto CLI: all checks passed" || { echo "$fails checks failed"; exit 1; }
