"""Fails (by assertion) unless alloc_ledger counted the same under another malloc.

    check_ledger_under_malloc.py GLIBC.json OTHER.json NAME

GLIBC.json and OTHER.json are alloc_ledger --format json outputs of the same run, the
second under LD_PRELOAD of the malloc NAME (alloc_ledger_mallocs_test.sh). The ledger
must name the malloc it found in each, and every count must be equal: counts are calls
our program makes, whatever serves them. The heap build must have made more than 1000
allocations, so that equal counts are not two zeros.
"""
import json
import sys

base, other, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
assert base["malloc"] == "glibc", base["malloc"]
assert other["malloc"] == name, f'ledger says malloc is {other["malloc"]}, expected {name}'
assert other["modes"] == base["modes"], f"counts differ under {name}"
assert other["modes"]["heap"]["build"]["allocs"] > 1000
