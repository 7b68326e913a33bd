"""Prints what malloc_trim cost the guarded server of one scripts/guard_cost.sh run.

    guard_cost_trims.py REPORT.json

REPORT.json is reco_load's report of the run, with a target named "guarded". Prints
the guarded server's malloc_trim calls and, when it served RPCs, the trim time per RPC
and the number of trims, indented to sit under scripts/lib/paired_ratios.py's table.
"""
import json
import sys


def main():
    guarded = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"]}["guarded"]
    trim, rpcs = guarded["server"].get("trim", {}), guarded["server"].get("rpcs") or 0
    print(f"  malloc_trim calls      {guarded['figures'].get('server_trims')}")
    if rpcs:
        print(f"  trim time per RPC      {trim.get('seconds', 0) * 1e6 / rpcs:.2f} us ({trim.get('trims', 0)} trims)")


if __name__ == "__main__":
    main()
