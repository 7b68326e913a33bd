#!/usr/bin/python3
"""Fails when a source file includes a folder its layer must not depend on.

    layering_test.py SOURCE_ROOT

The layers, lowest first (a folder may include its own files and those listed):
  patterns          nothing of the project's other folders, tests included: patterns/
                    is copied alone, under any folder name (PATTERNS_RULE below)
  proto             nothing of the project's
  core              proto, patterns
  schema            nothing of the project's (a user's service known at run time:
                    .proto files, protosets, the --call method, JSON into messages);
                    its tests may use core/test_util.h
  cli               nothing of the project's (every main's --version and flag parsing:
                    cli/build_info.h, cli/flag_parse.h)
  rpc               core, schema, proto (the RPC utilities server and client share; core
                    for reading a reply's bytes, core/byte_buffer_bytes.h; schema for
                    what server reflection fills, schema/proto_schema.h)
  server            core, rpc, patterns, proto, cli
  client            core, schema, rpc, patterns, proto, cli
  tools             core, schema, patterns, proto, cli
  bench             core, patterns, proto, server (a benchmark of the server's own
                    measurement, measure_cost_bench.cc; nothing includes bench/)
  examples          nothing of the project's folders by path: an example builds alone
                    with patterns/ beside it (tests/inbox_standalone.sh), including the
                    pattern files by name ("pooled_arena_allocator.h")
  stats             core, proto, and of server/ only the files in STATS_SERVER_FILES
                    (the process-wide measurement and the Prometheus endpoint that
                    reco_server and the stats library
                    share); its tests may use patterns/ (feed.proto, raw_call.h).
                    stats/server_stats.h, the one header a user includes, includes
                    nothing of the project's (STATS_PUBLIC_HEADER)
  tests, fuzz, sanitizers: anything (they test the layers)
Only quoted includes of the project's own folders are checked ("core/x.h").

Inside client/ (CLIENT_ROOMS): client/report/ makes things of a finished report (its
renderers, reader, merge, verdict and the --require gate) and may include client/'s
files; client/'s own files drive the load and fill the report, and never include
client/report/ -- except the main, which wires both (CLIENT_REPORT_USERS).

Inside core/, the files stand on floors (CORE_FLOORS, lowest first): a core file may
include core files on its own floor or below, never one above, so no arrow runs back
up. The request's rules (core/request.h) are on the ground floor: the catalogue, the
reply parts and the builder all read them there, so none of them includes another
for them. A core file on no floor fails (place it); core's tests may include any
core file.

PATTERNS_RULE: a quoted include in patterns/ names a file by its path from the
including file's folder, and that file exists there ("block_arena.h",
"testing/feed_builder.h", "../block_arena.h" from testing/); or it is a library's
(absl/, google/, grpc/, grpcpp/, gtest/, gmock/), or the code protoc generates from
patterns/testing/feed.proto. So the folder builds wherever it is copied, under any name.

Every file in patterns/ opens with the SPDX line of its license (Apache-2.0, the text
in LICENSE), so that a file copied into another service carries it.
"""
import os
import re
import sys

OWN_FOLDERS = {"proto", "patterns", "core", "schema", "cli", "rpc", "server", "client", "tools", "bench", "stats",
               "tests", "fuzz", "sanitizers", "examples"}
ALLOWED = {
    "patterns": set(),
    "core": {"core", "proto", "patterns"},
    "schema": {"schema"},
    "cli": {"cli"},
    "rpc": {"rpc", "core", "schema", "proto"},
    "server": {"server", "core", "rpc", "patterns", "proto", "cli"},
    "client": {"client", "core", "schema", "rpc", "patterns", "proto", "cli"},
    "tools": {"tools", "core", "schema", "patterns", "proto", "cli"},
    "bench": {"bench", "core", "patterns", "proto", "server"},
    "examples": set(),
    "stats": {"stats", "core", "proto"},
}
# The server/ files stats/ may include (by stem): generic, nothing of Recommend.
STATS_SERVER_FILES = {"process_metrics", "process_window", "phase_recorder", "metrics_endpoint", "prometheus_metrics",
                      "listen_address", "metrics_scrape"}
STATS_PUBLIC_HEADER = "stats/server_stats.h"
# core's floors, lowest first; a name is a file's stem (x for core/x.h and core/x.cc).
CORE_FLOORS = [
    # The ground floor: the request's rules, and files that include no core file.
    ["request", "splitmix", "allocation_counter", "latency_histogram", "byte_buffer_bytes", "message_store"],
    # Built on the ground floor: item text, the histogram's proto form, the reply budget's estimate.
    ["item_generator", "histogram_proto", "reply_memory"],
    # What a reply is made of: the catalogue's items and the per-request parts (scores_wire:
    # the scores' bytes written by hand from reply_parts' values).
    ["catalogue", "reply_parts", "scores_wire"],
    # The two ways of making a reply from them.
    ["response_builder", "fragment_reply"],
    # What measures the replies (any message's too), and the tests' helpers.
    ["allocation_ledger", "message_ledger", "test_util"],
]
# client/'s files that may include client/report/: the CLI's main, which writes the reports.
CLIENT_REPORT_USERS = {"reco_load.cc"}
CLIENT_REPORT_INCLUDE = re.compile(r'^\s*#\s*include\s+"client/report/')
# Tests of a layer may also use the layers' test helpers below them.
# (schema's tests write their .proto files in core/test_util.h's temporary folders.)
TEST_EXTRA = {"stats": {"patterns"}, "schema": {"core"}}
# What patterns/ may include besides its own files (PATTERNS_RULE).
LIBRARY_PREFIXES = ("absl/", "google/", "grpc/", "grpcpp/", "gtest/", "gmock/")
GENERATED = {"feed.pb.h", "feed.grpc.pb.h"}
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
CORE_INCLUDE = re.compile(r'^\s*#\s*include\s+"core/([a-z_]+)\.h"')


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
                        if m and layer == "stats" and m.group(1) == "server" and \
                                re.match(r'^\s*#\s*include\s+"server/(?:testing/)?([a-z_]+)\.h"',
                                         line).group(1) in STATS_SERVER_FILES:
                            continue
                        if m and m.group(1) in OWN_FOLDERS and m.group(1) not in ok:
                            found.append(f"{os.path.relpath(path, root)}:{number}: {layer}/ must not include "
                                         f"{m.group(1)}/ ({line.strip()})")
    return found


def core_floor_violations(root):
    """Core files that include a core file on a floor above their own."""
    floor_of = {stem: floor for floor, stems in enumerate(CORE_FLOORS) for stem in stems}
    found = []
    core = os.path.join(root, "core")
    for name in sorted(os.listdir(core)):
        if not name.endswith((".h", ".cc")) or name.endswith("_test.cc"):
            continue
        stem = name.rsplit(".", 1)[0]
        if stem not in floor_of:
            found.append(f"core/{name}: on no floor of CORE_FLOORS in {os.path.basename(__file__)}; place it")
            continue
        with open(os.path.join(core, name), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = CORE_INCLUDE.match(line)
                if m and floor_of.get(m.group(1), len(CORE_FLOORS)) > floor_of[stem]:
                    found.append(f"core/{name}:{number}: {stem} (floor {floor_of[stem]}) must not include "
                                 f"{m.group(1)} (floor {floor_of.get(m.group(1), 'none')}) ({line.strip()})")
    return found


def client_room_violations(root):
    """client/ files (not client/report/'s) that include client/report/: the load is
    driven without knowing how its report will be shown."""
    found = []
    client = os.path.join(root, "client")
    for name in sorted(os.listdir(client)):
        if not name.endswith((".h", ".cc")) or name in CLIENT_REPORT_USERS:
            continue
        with open(os.path.join(client, name), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if CLIENT_REPORT_INCLUDE.match(line):
                    found.append(f"client/{name}:{number}: only {sorted(CLIENT_REPORT_USERS)} of client/ may "
                                 f"include client/report/ ({line.strip()})")
    if not os.path.isdir(os.path.join(client, "report")):
        found.append("client/report/: missing (the report's room)")
    return found


SPDX = "SPDX-License-Identifier: Apache-2.0"


def pattern_include_violations(root):
    """Quoted includes in patterns/ that would not resolve in a copy of the folder alone."""
    found = []
    for dirpath, _, files in os.walk(os.path.join(root, "patterns")):
        for name in sorted(files):
            if not name.endswith((".h", ".cc")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = QUOTED_INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if target.startswith(LIBRARY_PREFIXES) or target in GENERATED:
                        continue
                    if not os.path.isfile(os.path.join(dirpath, target)):
                        found.append(f"{os.path.relpath(path, root)}:{number}: \"{target}\" is not a file beside "
                                     f"it: include another pattern file by its path from this folder")
    return found


def stats_header_violations(root):
    """Quoted includes in the stats library's public header: a user's server includes
    it alone (with grpcpp), so it may name nothing of the project's."""
    found = []
    with open(os.path.join(root, STATS_PUBLIC_HEADER), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if QUOTED_INCLUDE.match(line):
                found.append(f"{STATS_PUBLIC_HEADER}:{number}: the public header includes only <...> library "
                             f"headers ({line.strip()})")
    return found


def license_violations(root):
    """Files of patterns/ whose first line does not carry the SPDX license line: a
    pattern is copied file by file into other services, and its license must go with it
    (LICENSE at the root holds the text)."""
    found = []
    for dirpath, _, files in os.walk(os.path.join(root, "patterns")):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                first = f.readline()
                if first.startswith("#!"):  # a script: the SPDX line comes right after
                    first = f.readline()
            if SPDX not in first:
                found.append(f"{os.path.relpath(path, root)}:1: a pattern file opens with '{SPDX}' "
                             "(as a comment; after the #! line in a script)")
    if not os.path.isfile(os.path.join(root, "LICENSE")):
        found.append("LICENSE: missing (the Apache-2.0 text the SPDX lines name)")
    return found


def main():
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "core")):
        print("usage: layering_test.py SOURCE_ROOT (the folder holding core/, server/, client/...)",
              file=sys.stderr)
        return 2
    root = sys.argv[1]
    found = (violations(root) + core_floor_violations(root) + client_room_violations(root) +
             pattern_include_violations(root) +
             stats_header_violations(root) + license_violations(root))
    for v in found:
        print(v)
    checked = ", ".join(sorted(ALLOWED))
    print(f"layering: {len(found)} violation(s) in {checked}, core's {len(CORE_FLOORS)} floors, client's "
          f"rooms and patterns' includes and license lines")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
