"""Writes a copy of a reco_load report that claims to be another run with other parameters.

    make_other_run.py REPORT.json OUT.json

OUT.json is REPORT.json with 2 rounds and another start time: `reco_load merge` must
refuse to merge it with REPORT.json because the rounds differ, not because it is the
same run twice (merge_reports_test.sh).
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
doc["parameters"]["rounds"] = 2
doc["environment"]["started_utc"] = "another run"
json.dump(doc, open(sys.argv[2], "w"))
