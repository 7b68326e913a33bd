"""Prints the calls a scripts/flood.sh run answered OK and refused, as "OK REFUSED".

    flood_counts.py reco_load REPORT.json
    flood_counts.py raw RESULT.json...

reco_load: reco_load's report of the reading flood (its one target's client window;
refused = RESOURCE_EXHAUSTED). raw: the never-reading flood's results, one per
connection, from tests/hostile/raw_http2_client.py never_read_flood, summed (their
"statuses" map gRPC codes to counts: 0 is OK, 8 RESOURCE_EXHAUSTED).
"""
import json
import sys


def reco_load_counts(path):
    client = json.load(open(path))["targets"][0]["client"]
    return client["ok"], client["errors_by_code"].get("RESOURCE_EXHAUSTED", 0)


def raw_counts(paths):
    ok = refused = 0
    for path in paths:
        statuses = json.load(open(path))["statuses"]
        ok += statuses.get("0", 0)
        refused += statuses.get("8", 0)
    return ok, refused


def main():
    if sys.argv[1] == "reco_load":
        ok, refused = reco_load_counts(sys.argv[2])
    else:
        ok, refused = raw_counts(sys.argv[2:])
    print(ok, refused)


if __name__ == "__main__":
    main()
