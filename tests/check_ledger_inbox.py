"""Holds alloc_ledger's counts for the example's reply against the example's own.

    check_ledger_inbox.py PAGE.json LEDGER.json HANDLER_HEAP HANDLER_POOLED

PAGE.json is one ThreadPage (inbox_page_json), LEDGER.json what `alloc_ledger --proto
inbox.proto --message inbox.v1.ThreadPage --data_file PAGE.json --format json` printed
for it, HANDLER_* the build mallocs the example's handler makes for the same page
(inbox_allocations_test, counted in-process by another malloc counter).

  arena_pool: the ledger's build equals the handler's on the pooled arena, exactly.
  heap: they differ by what the ledger does not do as a handler does, stated exactly:
        the handler adds repeated elements one by one, and protobuf 3.21 grows a heap
        array 0 -> 1 -> 3 -> 7 -> ... (a malloc per step), where the ledger's copy
        reserves each array once; and the ledger news the page itself, which gRPC
        makes outside the handler. So ledger = handler - growth steps + arrays + 1
        (the handler reserves `threads` up front: one step).
"""
import json
import sys


def growth_steps(n):
    steps, capacity = 0, 0
    while capacity < n:
        capacity = 2 * capacity + 1
        steps += 1
    return steps


def repeated_lists(value, top=True):
    """(length, reserved) of every non-empty repeated field in the JSON tree."""
    if isinstance(value, dict):
        for key, v in value.items():
            if isinstance(v, list) and v:
                yield len(v), top and key == "threads"
            yield from repeated_lists(v, top=False)
    elif isinstance(value, list):
        for v in value:
            yield from repeated_lists(v, top=False)


def main(argv):
    if len(argv) != 5:
        print(__doc__)
        return 2
    page = json.load(open(argv[1]))
    ledger = json.load(open(argv[2]))
    handler_heap, handler_pooled = int(argv[3]), int(argv[4])
    lists = list(repeated_lists(page))
    if len(lists) != ledger["shape"]["repeated_fields"]:
        print(f"FAIL: the page has {len(lists)} non-empty repeated fields, the ledger's shape "
              f"{ledger['shape']['repeated_fields']}")
        return 1
    steps = sum(1 if reserved else growth_steps(n) for n, reserved in lists)
    heap = ledger["modes"]["heap"]["build"]["allocs"]
    pooled = ledger["modes"]["arena_pool"]["build"]["allocs"]
    want_heap = handler_heap - steps + len(lists) + 1
    ok = heap == want_heap and pooled == handler_pooled
    print(f"{'ok' if ok else 'FAIL'}: arena_pool build: ledger {pooled:g}, handler {handler_pooled}; heap build: "
          f"ledger {heap:g} = handler {handler_heap} - {steps} growth steps + {len(lists)} arrays + 1 page "
          f"(want {want_heap})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
