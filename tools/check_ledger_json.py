"""Fails (by assertion) unless alloc_ledger's JSON has the documented shape.

    check_ledger_json.py JSON_TEXT

JSON_TEXT is the output of `alloc_ledger --items 20 --profile compact --format json`
(alloc_ledger_cli_test.sh): the items and profile asked, every mode with allocs, frees
and bytes for each of build, serialize and release; arena_pool's build makes no
allocation, nor does arena_alias's (arena_pool with the catalogue's sub-messages aliased),
and fragments' serialize does nothing (the reply is already its bytes).
"""
import json
import sys

doc = json.loads(sys.argv[1])
assert doc["items"] == 20 and doc["profile"] == "compact", doc
assert set(doc["modes"]) == {"heap", "reuse", "arena", "arena_pool", "arena_alias", "fragments"}, doc["modes"].keys()
for mode in doc["modes"].values():
    for phase in ("build", "serialize", "release"):
        assert set(mode[phase]) >= {"allocs", "frees", "bytes"}, mode
assert doc["modes"]["arena_pool"]["build"]["allocs"] == 0, doc["modes"]["arena_pool"]
assert doc["modes"]["arena_alias"]["build"]["allocs"] == 0, doc["modes"]["arena_alias"]
assert doc["modes"]["fragments"]["serialize"] == {"allocs": 0, "frees": 0, "bytes": 0}, doc["modes"]["fragments"]
