#!/usr/bin/python3
"""Fails when a source file includes a folder its layer must not depend on.

    layering_test.py SOURCE_ROOT

The layers, lowest first (a folder may include its own files and those listed):
  proto, patterns   patterns/ may include patterns/ and proto/ only (outside its tests):
                    a pattern file must stay copyable on its own
  core              proto, patterns
  rpc               proto (the RPC utilities server and client share)
  server            core, rpc, patterns, proto
  client            core, rpc, patterns, proto
  tools, bench      core, patterns, proto
  tests, fuzz, sanitizers: anything (they test the layers)
Only quoted includes of the project's own folders are checked ("core/x.h").
"""
import os
import re
import sys

OWN_FOLDERS = {"proto", "patterns", "core", "rpc", "server", "client", "tools", "bench", "tests", "fuzz",
               "sanitizers"}
ALLOWED = {
    "patterns": {"patterns", "proto"},
    "core": {"core", "proto", "patterns"},
    "rpc": {"rpc", "proto"},
    "server": {"server", "core", "rpc", "patterns", "proto"},
    "client": {"client", "core", "rpc", "patterns", "proto"},
    "tools": {"tools", "core", "patterns", "proto"},
    "bench": {"bench", "core", "patterns", "proto"},
}
# Tests of a layer may also use the layers' test helpers below them.
TEST_EXTRA = {"patterns": {"core"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def violations(root):
    found = []
    for layer, allowed in ALLOWED.items():
        for dirpath, _, files in os.walk(os.path.join(root, layer)):
            for name in files:
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                ok = allowed | (TEST_EXTRA.get(layer, set()) if name.endswith("_test.cc") else set())
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1) in OWN_FOLDERS and m.group(1) not in ok:
                            found.append(f"{os.path.relpath(path, root)}:{number}: {layer}/ must not include "
                                         f"{m.group(1)}/ ({line.strip()})")
    return found


def main():
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "core")):
        print("usage: layering_test.py SOURCE_ROOT (the folder holding core/, server/, client/...)",
              file=sys.stderr)
        return 2
    found = violations(sys.argv[1])
    for v in found:
        print(v)
    checked = ", ".join(sorted(ALLOWED))
    print(f"layering: {len(found)} violation(s) in {checked}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
