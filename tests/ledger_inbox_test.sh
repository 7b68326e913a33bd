#!/usr/bin/env bash
# alloc_ledger on a reply of a service we did not design (examples/inbox): one page as
# JSON from the example's handler, measured by alloc_ledger through dynamic messages,
# against the build mallocs the example's own test counts in-process on generated code
# (tests/check_ledger_inbox.py states how the two must relate), short and long text.
#   tests/ledger_inbox_test.sh SOURCE_ROOT ALLOC_LEDGER INBOX_PAGE_JSON INBOX_ALLOCATIONS_TEST
set -euo pipefail
src=$1 ledger=$2 page_json=$3 allocations_test=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$allocations_test" --gtest_filter='InboxAllocations.*' >"$tmp/handler.txt"
count() { sed -n "s/^$1, $2 text, 50 threads: \([0-9][0-9]*\) .*/\1/p" "$tmp/handler.txt"; }
for text in short long; do
  flag=()
  [ "$text" = long ] && flag=(--long_text)
  "$page_json" --threads 50 "${flag[@]}" >"$tmp/page-$text.json"
  "$ledger" --proto "$src/examples/inbox/inbox.proto" --message inbox.v1.ThreadPage --data_file "$tmp/page-$text.json" \
    --modes heap,arena_pool --format json >"$tmp/ledger-$text.json"
  heap=$(count heap "$text") pooled=$(count pooled_arena "$text")
  [ -n "$heap" ] && [ -n "$pooled" ] || { echo "FAIL: no handler counts for $text text" >&2; exit 1; }
  echo -n "$text text: "
  /usr/bin/python3 "$src/tests/check_ledger_inbox.py" "$tmp/page-$text.json" "$tmp/ledger-$text.json" "$heap" "$pooled"
done
echo PASS
