"""Fails unless MERGED is the exact merge of the reco_load reports INPUTS.

    check_merged_report.py MERGED.json INPUT.json...

Per target and round, and for the target totals: ok, completed and the latency
histogram's count and sum are the inputs' sums, every latency bucket is the sum of the
inputs' buckets, and the window `seconds` is the longest input's, not their sum (the
inputs ran at the same time). Also: merged_from lists the inputs, and the server side
is marked unavailable.
"""
import collections
import json
import sys


def windows(doc):
    """(label, client dict) for every target total and round."""
    for t in doc["targets"]:
        yield t["name"] + " all", t["client"]
        for r in t["rounds"]:
            yield "%s round %d" % (t["name"], r["round"]), r["client"]


def buckets(latency):
    return collections.Counter({i: n for i, n in latency["buckets"]})


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    merged = json.load(open(argv[1]))
    inputs = [json.load(open(p)) for p in argv[2:]]
    problems = []
    if merged["environment"]["merged_from"] != argv[2:]:
        problems.append("merged_from %r, want %r" % (merged["environment"]["merged_from"], argv[2:]))
    per_input = [dict(windows(d)) for d in inputs]
    for label, m in windows(merged):
        parts = [w[label] for w in per_input]
        for key in ("ok", "completed", "sent"):
            want = sum(p[key] for p in parts)
            if m[key] != want:
                problems.append("%s: %s %d, want %d" % (label, key, m[key], want))
        for key in ("count", "sum_ns"):
            want = sum(p["latency"][key] for p in parts)
            if m["latency"][key] != want:
                problems.append("%s: latency %s %d, want %d" % (label, key, m["latency"][key], want))
        want_buckets = sum((buckets(p["latency"]) for p in parts), collections.Counter())
        if buckets(m["latency"]) != want_buckets:
            problems.append("%s: latency buckets are not the inputs' sum" % label)
        want_seconds = max(p["seconds"] for p in parts)
        if m["seconds"] != want_seconds:
            problems.append("%s: seconds %r, want the longest input's %r" % (label, m["seconds"], want_seconds))
        if min(p["ok"] for p in parts) == 0:
            problems.append("%s: an input answered nothing; the test proves nothing" % label)
    for t in merged["targets"]:
        if t["server"]["available"]:
            problems.append("%s: server side should be unavailable in a merge" % t["name"])
    for p in problems:
        print("FAIL:", p, file=sys.stderr)
    if not problems:
        print("merged %d reports: ok %d = %s" % (len(inputs), merged["targets"][0]["client"]["ok"],
                                                 " + ".join(str(d["targets"][0]["client"]["ok"]) for d in inputs)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
