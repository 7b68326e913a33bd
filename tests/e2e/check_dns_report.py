"""Fails (by assertion) unless a reco_load report of one dns:/// target is served.

    check_dns_report.py REPORT.json TARGET

The report's one target lists TARGET (e.g. dns:///127.0.0.1:PORT) as its only
backend, as given, and its server figures are available with RPCs served: reco_load
read the one address the name resolved to (replicas_test.sh).
"""
import json
import sys

t = json.load(open(sys.argv[1]))["targets"][0]
assert t["backends"] == [sys.argv[2]], t["backends"]
assert t["server"]["available"] and t["server"]["rpcs"] > 0, t["server"].get("note")
