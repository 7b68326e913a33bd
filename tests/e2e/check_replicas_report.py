"""Fails unless a reco_load JSON report of one replicated target adds up.

    check_replicas_report.py REPORT.json round_robin|pick_first N

The single target has N replicas with distinct addresses, each with server figures;
their RPCs sum to the target's server RPCs (total and per round); the client's OK
replies match the RPCs the replicas answered within 10% (+20): every reply counted
once. Not exactly: the server window runs from the snapshots, taken one replica after
another just after the client's window opens and closes, so its edges differ by a
few replies; a replica missed (or one counted twice) is off by about a third. round_robin:
every replica served at least one RPC. pick_first: exactly one did (the one channel
stays on the backend it connected to first).
"""
import json
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    doc, policy, n = json.load(open(argv[1])), argv[2], int(argv[3])
    problems = []
    if doc["parameters"]["lb_policy"] != policy:
        problems.append("parameters.lb_policy %r, want %r" % (doc["parameters"]["lb_policy"], policy))
    if len(doc["targets"]) != 1:
        problems.append("%d targets, want one with %d replicas" % (len(doc["targets"]), n))
    t = doc["targets"][0]
    windows = [("all", t)] + [("round %d" % r["round"], r) for r in t["rounds"]]
    for label, w in windows:
        reps, server = w["replicas"], w["server"]
        if len(reps) != n or len({r["address"] for r in reps}) != n:
            problems.append("%s: replicas %r, want %d distinct" % (label, [r["address"] for r in reps], n))
            continue
        if not server["available"] or not all(r["available"] for r in reps):
            problems.append("%s: server figures unavailable: %r" % (label, [r["note"] for r in reps]))
            continue
        total = sum(r["rpcs"] for r in reps)
        if total != server["rpcs"]:
            problems.append("%s: replicas served %d RPCs, the target's server figures say %d"
                            % (label, total, server["rpcs"]))
        ok = w["client"]["ok"]
        if not (ok > 0 and abs(total - ok) <= 0.1 * ok + 20):
            problems.append("%s: the client counted %d OK replies, the servers answered %d" % (label, ok, total))
        serving = [r["address"] for r in reps if r["rpcs"] > 0]
        if policy == "round_robin" and len(serving) != n:
            problems.append("%s: only %r served RPCs under round_robin: %r"
                            % (label, serving, [r["rpcs"] for r in reps]))
        if policy == "pick_first" and len(serving) != 1:
            problems.append("%s: %d replicas served under pick_first, want 1: %r"
                            % (label, len(serving), [r["rpcs"] for r in reps]))
        print("%s: %s" % (label, ", ".join("%s %d" % (r["address"], r["rpcs"]) for r in reps)))
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
