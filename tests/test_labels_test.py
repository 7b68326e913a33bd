#!/usr/bin/python3
"""Fails when a test declared with labels does not carry every one of them in ctest.

    test_labels_test.py SOURCE_ROOT BUILD_DIR

Labels choose what runs where: scripts/sanitize.sh tsan runs `ctest -L tsan`, and
`ctest -L hostile` the hostile clients. A label lost on the way means a test that
silently stops running under a sanitizer (hostile_threads_test did: CMake 3.25's
gtest_discover_tests kept only the first label of a GoogleTest binary).

Reads every reco_add_test / reco_add_script_test / patterns_add_test call with
LABELS in the source tree's CMakeLists.txt files (names built from variables are
skipped), lists the build's tests with `ctest --show-only=json-v1`, and checks that
each declared test has at least one case there and that every case has every declared
label.
"""
import json
import pathlib
import re
import subprocess
import sys

CALL = re.compile(r"\b(?:reco|patterns)_add_(script_)?test\(\s*([A-Za-z0-9_]+)(?=\s)(.*?)\)\s*$", re.S | re.M)
# ends a label list
KEYWORDS = {"SOURCES", "LIBS", "LABELS", "COMMAND", "SERIAL", "HEAVY", "ATTACK", "TIMED", "GRPC_UNHELD"}


def declared_labels(source_root):
    """{test name: (is_script, [labels])} for every call that names labels."""
    declared = {}
    for path in pathlib.Path(source_root).rglob("CMakeLists.txt"):
        if any(part.startswith("build") for part in path.relative_to(source_root).parts):
            continue
        for match in CALL.finditer(path.read_text()):
            words = match.group(3).split()
            if "LABELS" not in words:
                continue
            labels = []
            for word in words[words.index("LABELS") + 1:]:
                if word in KEYWORDS:
                    break
                labels.append(word)
            declared[match.group(2)] = (bool(match.group(1)), labels)
    return declared


def ctest_labels(build_dir):
    """{test name: set of labels} as ctest sees them."""
    listing = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                             check=True, capture_output=True, text=True).stdout
    tests = {}
    for test in json.loads(listing)["tests"]:
        labels = set()
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                labels.update(prop["value"])
        tests[test["name"]] = labels
    return tests


def problems(declared, tests):
    found = []
    for name, (is_script, labels) in sorted(declared.items()):
        cases = {t: l for t, l in tests.items() if t == name or (not is_script and t.startswith(name + "."))}
        if not cases:
            found.append(f"{name}: declared with LABELS {' '.join(labels)}, but ctest lists no case of it")
        for case, have in sorted(cases.items()):
            missing = [label for label in labels if label not in have]
            if missing:
                found.append(f"{case}: lacks label(s) {' '.join(missing)} (has: {' '.join(sorted(have)) or 'none'})")
    return found


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    declared = declared_labels(argv[1])
    if not any(len(labels) > 1 for _, labels in declared.values()):
        print("FAIL: no test is declared with two labels: the parser no longer reads the calls")
        return 1
    found = problems(declared, ctest_labels(argv[2]))
    for line in found[:40]:
        print("FAIL:", line)
    if found:
        return 1
    print(f"PASS: {len(declared)} labelled tests, every case with every label")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
