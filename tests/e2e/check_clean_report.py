"""Fails unless every client window of a reco_load JSON report is clean.

    check_clean_report.py REPORT.json [--all-verified]

Clean: no error of any gRPC code, no wrong item count, no wrong content, at least one
call completed and every completed call OK. --all-verified also asks that every OK
reply was compared byte for byte (reco_load --verify_every 1). Prints how many replies
the first window verified.
"""
import json
import sys


def client_windows(x):
    """Every client window in the report: the dicts with errors_by_code."""
    if isinstance(x, dict):
        if "errors_by_code" in x:
            yield x
        for v in x.values():
            yield from client_windows(v)
    elif isinstance(x, list):
        for v in x:
            yield from client_windows(v)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    with open(argv[1]) as f:
        windows = list(client_windows(json.load(f)))
    assert windows, "no client window in the report"
    for w in windows:
        assert w["errors_by_code"] == {} and w["wrong_item_count"] == 0 and w["wrong_content"] == 0, w
        assert w["completed"] > 0 and w["ok"] == w["completed"], w
        if "--all-verified" in argv[2:]:
            assert w["verified"] == w["ok"], w
    print("verified %d replies" % windows[0]["verified"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
