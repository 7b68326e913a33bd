#!/usr/bin/python3
"""Renders bench/matrix.sh's results folder as a Markdown page with SVG charts.

  bench/matrix_page.py RESULTS_DIR [--page docs/RESULTS.md]

Reads RESULTS_DIR/meta.txt, and per malloc RESULTS_DIR/<malloc>/bench.json (reco_bench)
and load-<profile>.json (reco_load), or a SKIPPED file naming why the malloc was not
run. Writes the page and, in a results/ folder beside it, one small SVG per chart
(inline styles only, no script). Standard library only: runs with Debian's
/usr/bin/python3 on a machine with nothing else installed.

Every figure on the page is copied from the JSON files; nothing is measured here. The
machine and package versions are read when the page is rendered, which matrix.sh does
at the end of the same run.
"""
import argparse
import dataclasses
import json
import os
import platform
import statistics
import subprocess
import sys

MALLOCS = ["glibc", "tcmalloc", "jemalloc", "mimalloc"]
MODES = ["heap", "reuse", "arena", "arena_pool"]
TARGETS = MODES + ["fragments", "ceiling"]
# One colour per target, the same in every chart.
COLOURS = {"heap": "#d62728", "reuse": "#ff7f0e", "arena": "#2ca02c", "arena_pool": "#1f77b4",
           "fragments": "#9467bd", "ceiling": "#7f7f7f"}
PACKAGES = {  # what the figures depend on -> the Debian package that provides it
    "glibc": "libc6", "protobuf": "libprotobuf32", "gRPC": "libgrpc++1.51",
    "Google Benchmark": "libbenchmark1debian", "tcmalloc": "libtcmalloc-minimal4",
    "jemalloc": "libjemalloc2", "mimalloc": "libmimalloc2.0"}


def read_meta(folder):
    meta = {}
    with open(os.path.join(folder, "meta.txt")) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            meta[key] = value
    return meta


def package_version(name):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "not installed"
    except OSError:
        return "unknown (no dpkg-query)"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def load_bench(path):
    """name -> run, preferring the median aggregate when the run had repetitions."""
    with open(path) as f:
        doc = json.load(f)
    runs = {}
    for r in doc["benchmarks"]:
        if r.get("run_type") == "aggregate":
            if r.get("aggregate_name") != "median":
                continue
            runs[r["run_name"]] = r
        else:
            runs.setdefault(r.get("run_name", r["name"]), r)
    return runs


def micros(run, clock):
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[run.get("time_unit", "ns")]
    return run[clock] * scale


def table_head(labels, aligns):
    """A Markdown table's header line and separator line; aligns has one letter per
    column: l (left, for names) or r (right, for figures)."""
    return ["| " + " | ".join(labels) + " |",
            "|" + "".join("---|" if a == "l" else "---:|" for a in aligns)]


def bench_cells(bench, ran, name, clock):
    """The cells of one reco_bench table row after its labels: per malloc, benchmark
    `name`'s µs on `clock` (SKIPPED for a malloc not run, n/a for a missing run), then its
    allocations per run, the same under every malloc (taken from the first that ran)."""
    cells, allocs = [], None
    for m in MALLOCS:
        r = bench.get(m, {}).get(name)
        if m not in ran:
            cells.append("SKIPPED")
        elif r is None:
            cells.append("n/a")
        else:
            cells.append(fmt(micros(r, clock), 1))
            allocs = r.get("allocs") if allocs is None else allocs
    return " | ".join(cells) + f" | {fmt(allocs, 0)} |"


def load_service(path):
    """target name -> {qps, lo, hi, share, cpu, build_allocs, process_allocs, errors, ...}.

    reco_load's own paired ratios (ratios_to_baseline, share_of_ceiling) and its
    noise guard (disturbed_rounds, each round's machine.other_cpu_share) are kept when
    the report has them; reports from before they existed leave them empty."""
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for t in doc["targets"]:
        fig = t["figures"]
        out[t["name"]] = {
            "name": t["name"], "baseline": doc["parameters"].get("baseline"),
            "qps": fig["qps"], "lo": t["qps_min_round"], "hi": t["qps_max_round"],
            "share": t.get("qps_share_of_ceiling"),
            "share_paired": (t.get("share_of_ceiling") or {}).get("qps"),
            "ratios": t.get("ratios_to_baseline") or {},
            "cpu": fig.get("server_cpu_us_per_rpc"),
            "build_allocs": fig.get("server_build_allocs_per_rpc"),
            "process_allocs": fig.get("server_process_allocs_per_rpc"),
            "p99": fig.get("latency_p99_ms"), "errors": fig.get("errors"),
            "disturbed": t.get("disturbed_rounds", []),
            "other_cpu": {r["round"]: (r.get("machine") or {}).get("other_cpu_share") for r in t.get("rounds", [])},
            "rounds": [r["figures"] for r in t.get("rounds", [])]}
    return out, doc


def paired_ratio(target, baseline, key):
    """'x1.23 [1.10-1.40]': the median of the per-round ratios target/baseline with
    their min-max (reco_load drives targets in interleaved rounds, so a round's noise
    hits both). reco_load's own figure when the baseline is the report's; computed
    the same way from the rounds otherwise (or for reports from before it had one)."""
    own = target["ratios"].get(key) if baseline.get("name") == target.get("baseline") else None
    if own:
        median, lo, hi = own["median"], own["min"], own["max"]
    else:
        pairs = [(a.get(key), b.get(key)) for a, b in zip(target.get("rounds", []), baseline.get("rounds", []))]
        ratios = sorted(a / b for a, b in pairs if a is not None and b)
        if not ratios:
            return None
        median, lo, hi = statistics.median(ratios), ratios[0], ratios[-1]
    return ratio_text(median, lo, hi)


def ratio_text(median, lo, hi):
    text = f"x{median:.2f} [{lo:.2f}-{hi:.2f}]"
    return text + (", no measurable difference" if lo <= 1.0 <= hi else "")


def share_text(s):
    """A target's share of the ceiling: reco_load's median of the per-round shares with
    their min-max when it has one ('42 %** [40-45]' inside bold), else the whole-run share."""
    p = s.get("share_paired")
    if p and p["rounds"] > 1:
        return f"**{p['median'] * 100:.0f} %** [{p['min'] * 100:.0f}-{p['max'] * 100:.0f}]"
    if p:
        return f"**{p['median'] * 100:.0f} %**"
    return f"**{s['share'] * 100:.0f} %**" if s.get("share") is not None else ""


def disturbed_note(service, ran, profile):
    """The sentence under a QPS table on the rounds reco_load's noise guard marked."""
    marked, measured = [], False
    for m in ran:
        for t in TARGETS:
            s = service[(m, profile)].get(t)
            if not s:
                continue
            measured = measured or any(v is not None for v in s["other_cpu"].values())
            for r in s["disturbed"]:
                share = s["other_cpu"].get(r)
                marked.append(f"{m} `{t}` round {r}" + (f" ({share * 100:.0f} %)" if share is not None else ""))
    if marked:
        return ("† Rounds disturbed by other processes (they used more than 10 % of the machine's CPU during the "
                "measured window; those rounds' figures are suspect, rerun on a quiet machine): "
                + ", ".join(marked) + ".")
    if measured:
        return ("No round was disturbed: other processes stayed under 10 % of the machine's CPU in every "
                "measured window (reco_load's noise guard).")
    return ""


def fmt(value, decimals=0):
    if value is None:
        return "n/a"
    return f"{value:,.{decimals}f}"


# ---- SVG: grouped bars, inline styles only ---------------------------------------

def bar_chart_svg(title, y_label, groups, series, values, whiskers=None):
    """groups: x labels; series: bar names; values[g][s]: number or None."""
    width, height = 720, 320
    left, right, top, bottom = 70, 150, 40, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max([v for row in values for v in row if v is not None] + [0])
    if whiskers:
        peak = max([hi for row in whiskers for w in row if w for hi in [w[1]]] + [peak])
    peak = nice_ceiling(peak)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" style="font-family:sans-serif;font-size:12px;background:#fff">',
             f'<text x="{width / 2}" y="20" text-anchor="middle" style="font-size:14px;font-weight:bold">'
             f'{escape(title)}</text>',
             f'<text x="16" y="{top + plot_h / 2}" text-anchor="middle" transform="rotate(-90 16 {top + plot_h / 2})">'
             f'{escape(y_label)}</text>']
    for i in range(5):
        v = peak * i / 4
        y = top + plot_h - plot_h * i / 4
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" style="stroke:#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{short_number(v)}</text>')
    group_w = plot_w / max(len(groups), 1)
    bar_w = group_w * 0.8 / max(len(series), 1)
    for g, label in enumerate(groups):
        x0 = left + g * group_w + group_w * 0.1
        parts.append(f'<text x="{left + g * group_w + group_w / 2:.1f}" y="{top + plot_h + 18}" '
                     f'text-anchor="middle">{escape(label)}</text>')
        for s, name in enumerate(series):
            v = values[g][s]
            x = x0 + s * bar_w
            if v is None:
                parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{top + plot_h - 4}" text-anchor="middle" '
                             f'style="font-size:9px;fill:#999">n/a</text>')
                continue
            h = plot_h * v / peak if peak else 0
            parts.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w * 0.9:.1f}" height="{h:.1f}" '
                         f'style="fill:{COLOURS.get(name, "#555")}"><title>{escape(name)}: {v:,.1f}</title></rect>')
            w = whiskers[g][s] if whiskers else None
            if w and w[1] > w[0]:
                cx = x + bar_w * 0.45
                y_lo, y_hi = top + plot_h - plot_h * w[0] / peak, top + plot_h - plot_h * w[1] / peak
                parts.append(f'<line x1="{cx:.1f}" y1="{y_lo:.1f}" x2="{cx:.1f}" y2="{y_hi:.1f}" '
                             f'style="stroke:#000;stroke-width:1"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
                 f'style="stroke:#333"/>')
    for s, name in enumerate(series):
        y = top + 10 + s * 18
        parts.append(f'<rect x="{left + plot_w + 16}" y="{y - 9}" width="12" height="12" '
                     f'style="fill:{COLOURS.get(name, "#555")}"/>')
        parts.append(f'<text x="{left + plot_w + 34}" y="{y + 1}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def nice_ceiling(v):
    if v <= 0:
        return 1
    step = 10 ** len(str(int(v))) / 100
    for m in (1, 2, 2.5, 5, 10):
        if v <= step * m * 10:
            return step * m * 10
    return v


def short_number(v):
    return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"


def escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ---- reading the run --------------------------------------------------------------

@dataclasses.dataclass
class Run:
    """One matrix run as read from its results folder: everything the page shows."""
    meta: dict  # meta.txt: how the run was made (mode, flags, times, machine load)
    profiles: list  # the text profiles reco_load ran
    ran: list = dataclasses.field(default_factory=list)  # mallocs that ran, in MALLOCS order
    skipped: dict = dataclasses.field(default_factory=dict)  # malloc -> why it did not run
    bench: dict = dataclasses.field(default_factory=dict)  # malloc -> load_bench()
    service: dict = dataclasses.field(default_factory=dict)  # (malloc, profile) -> load_service()[0]
    load_docs: dict = dataclasses.field(default_factory=dict)  # (malloc, profile) -> the report
    swap: dict = dataclasses.field(default_factory=dict)  # profile -> load_service() of the swap
    h2load: dict = None  # scripts/compare_h2load_summary.py's summary, when h2load ran


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="the folder bench/matrix.sh wrote")
    parser.add_argument("--page", default="docs/RESULTS.md", help="the Markdown page to write")
    parser.add_argument("--archive", help="where bench/matrix.sh --archive keeps the run's JSON (named on the page)")
    return parser.parse_args()


def read_run(folder):
    """Reads meta.txt, then per malloc its reco_bench and reco_load JSON or why it did
    not run (not asked for, or its SKIPPED file), then the malloc swap's reports if any."""
    meta = read_meta(folder)
    run = Run(meta, meta.get("profiles", "realistic").split())
    for m in MALLOCS:
        sub = os.path.join(folder, m)
        if m not in meta.get("mallocs", " ".join(MALLOCS)).split():
            run.skipped[m] = "not asked for (--mallocs)"
        elif os.path.exists(os.path.join(sub, "SKIPPED")) or not os.path.isdir(sub):
            reason = open(os.path.join(sub, "SKIPPED")).read().strip() if os.path.isdir(sub) else ""
            run.skipped[m] = reason or "not installed"
        else:
            run.ran.append(m)
            run.bench[m] = load_bench(os.path.join(sub, "bench.json"))
            for p in run.profiles:
                run.service[(m, p)], run.load_docs[(m, p)] = load_service(os.path.join(sub, f"load-{p}.json"))
    for p in run.profiles:
        path = os.path.join(folder, "swap", f"swap-{p}.json")
        if os.path.exists(path):
            run.swap[p] = load_service(path)
    path = os.path.join(folder, "h2load", "summary.json")
    if os.path.exists(path):
        run.h2load = json.load(open(path))
    return run


# ---- the page, one function per section -------------------------------------------

def page_head(run):
    """The title, how the page was made and how to remake it, and a warning in short mode."""
    lines = ["# Results: four memory modes, fragments and the ceiling, under four mallocs", ""]
    add = lines.append
    add(f"Generated by `bench/matrix.sh` ({run.meta['mode']} mode) on {run.meta['started_utc']}; do not edit by "
        "hand, rerun the command below. What each mode is: [the README](../README.md); what the figures mean: "
        "[benchmarks.md](benchmarks.md) (reco_bench) and [load-client.md](load-client.md) (reco_load).")
    add("")
    add("Rerun: build (`scripts/build.sh`), then `bench/matrix.sh` (full mode) or `bench/matrix.sh --short` "
        "(the CI test `bench_matrix_short`); `bench/matrix.sh --help` lists the options.")
    add("")
    if run.meta["mode"] == "short":
        add("**Short mode**: tiny benchmark times and 1-second load windows, one round. The figures show that "
            "everything runs; they are too short to compare modes. The full mode is `bench/matrix.sh`.")
        add("")
    return lines


def setup_table(run):
    """What the figures were measured on and with: the machine, the run's times and load,
    both programs' flags, the package versions, and which mallocs ran or were skipped."""
    meta = run.meta
    any_doc = next(iter(run.load_docs.values()), None)
    env = any_doc["environment"] if any_doc else {}
    wall = int(meta.get("wall_seconds", 0))
    lines = ["| | |", "|---|---|"]
    add = lines.append
    add(f"| machine | {cpu_model()}, {os.cpu_count()} cores; {os_name()}; kernel {platform.release()} |")
    add(f"| run | {meta['started_utc']} to {meta.get('finished_utc', '?')}, "
        f"{wall // 60} min {wall % 60} s; load average "
        f"{meta.get('loadavg_start', '?')} before, {meta.get('loadavg_end', '?')} after (other jobs shared the "
        f"machine: read differences under ~10-20 % as noise); machine before run: "
        f"{meta.get('machine_before', 'not recorded')} |")
    add(f"| command | `{meta['command']}` |")
    # A "|" inside a table cell ends the cell, even in code: escape it.
    bench_cell = f"`--benchmark_filter='{meta['bench_filter']}' {meta['bench_flags']}`".replace("|", "\\|")
    add(f"| reco_bench | {bench_cell} |")
    add(f"| reco_load | `{meta['load_flags']}` per text profile ({', '.join(run.profiles)}), 200 items, closed "
        f"loop, 16 in flight over 2 connections; targets heap, reuse, arena, arena_pool, fragments, ceiling |")
    versions = "; ".join(f"{k} {package_version(v)}" for k, v in PACKAGES.items())
    add(f"| packages (dpkg) | {versions} |")
    if env:
        add(f"| as the binaries report | protobuf {env.get('protobuf_version')}, gRPC {env.get('grpc_version')} |")
    add("")
    add("Mallocs: " + "; ".join(f"**{m}** ran" if m in run.ran else f"**{m}** SKIPPED ({run.skipped[m]})"
                                for m in MALLOCS) + ".")
    add("Each malloc is given to the servers and to reco_bench with `LD_PRELOAD` (glibc: none); "
        "the load client always runs on glibc, so only the server's malloc changes between columns.")
    add("")
    return lines


def service_section(run, svg_dir):
    """reco_server per mode driven by reco_load: what the ceiling and fragments are, then
    per text profile the QPS table, the CPU and allocations table and the QPS chart."""
    lines = ["## The service: reco_server per mode, driven by reco_load", ""]
    lines.append("`ceiling` is `reco_server --mode ceiling`: one reply serialized at start-up and sent for every "
                 "request without building anything -- the most this transport (gRPC 1.51, HTTP/2 on loopback, "
                 "this client) carries on this machine. It ignores the request's content: a limit to measure "
                 "against, not a server to copy. `fragments` is `reco_server --mode fragments`: a real handler "
                 "that builds no message, splicing the catalogue's pre-serialized items with per-request scores "
                 "([patterns.md](patterns.md)). *Share* is a mode's QPS over the ceiling's in the same run.")
    lines.append("")
    for p in run.profiles:
        lines += [f"### {p.capitalize()} text, 200 items", ""]
        lines += qps_table(run, p) + cpu_table(run, p) + qps_chart(run, p, svg_dir)
    return lines


def target_cells(run, profile, target, cell):
    """One cell per malloc for a target's row of a service table: SKIPPED for a malloc
    not run, else cell(figures), with figures None when the target is missing."""
    return ["SKIPPED" if m not in run.ran else cell(run.service[(m, profile)].get(target)) for m in MALLOCS]


def qps_cell(s):
    """'12,345 (12,000-12,500), **42 %** [40-45] †': QPS, its spread over rounds, the share
    of the ceiling, and a mark when a round was disturbed."""
    if s is None:
        return "n/a"
    share = share_text(s)
    share = f", {share}" if share else ""
    spread = f" ({s['lo']:,.0f}-{s['hi']:,.0f})" if s["hi"] > s["lo"] else ""
    mark = " †" if s["disturbed"] else ""
    return f"{s['qps']:,.0f}{spread}{share}{mark}"


def qps_table(run, p):
    """Per target and malloc: QPS with its min-max over rounds and the share of the
    ceiling; under it, which rounds the noise guard marked as disturbed."""
    lines = ["QPS (OK responses per second, all rounds; min-max over rounds) and share of the ceiling (median of "
             "the per-round shares [min-max]):", ""]
    lines += table_head(["mode"] + MALLOCS, "l" + "r" * len(MALLOCS))
    for t in TARGETS:
        lines.append(f"| `{t}` | " + " | ".join(target_cells(run, p, t, qps_cell)) + " |")
    lines.append("")
    note = disturbed_note(run.service, run.ran, p)
    if note:
        lines += [note, ""]
    return lines


def cpu_table(run, p):
    """Per target: the server's CPU per RPC under each malloc, and its build and
    whole-process allocations per RPC (exact counts, from the first malloc that ran)."""
    lines = ["Server CPU per RPC in µs (user + system of the server process over the measured windows; steadier "
             "than QPS on a shared machine), and build / whole-process allocations per RPC (exact counts):", ""]
    lines += table_head(["mode"] + [f"{m} CPU µs" for m in MALLOCS] + ["build allocs", "process allocs"],
                        "l" + "r" * (len(MALLOCS) + 2))
    for t in TARGETS:
        cells = target_cells(run, p, t, lambda s: fmt(s and s["cpu"], 0))
        first = run.service[(run.ran[0], p)].get(t) if run.ran else None
        cells.append(fmt(first and first["build_allocs"], 0))
        cells.append(fmt(first and first["process_allocs"], 0))
        lines.append(f"| `{t}` | " + " | ".join(cells) + " |")
    if run.ran:
        lines.append("")
        lines.append(f"(Allocation counts from the {run.ran[0]} run; they hardly depend on the malloc. The "
                     "ceiling's build is the copy of its reply's ByteBuffer header.)")
    lines.append("")
    return lines


def qps_chart(run, p, svg_dir):
    """Writes the QPS chart of one text profile (bars per malloc and target, whiskers
    min-max over rounds) and returns the lines that show it; none when no malloc ran."""
    if not run.ran:
        return []
    name = f"service-qps-{p}.svg"
    service, ran = run.service, run.ran
    values = [[service[(m, p)].get(t, {}).get("qps") if m in ran else None for t in TARGETS] for m in MALLOCS]
    whisk = [[(service[(m, p)][t]["lo"], service[(m, p)][t]["hi"]) if m in ran and t in service[(m, p)]
              else None for t in TARGETS] for m in MALLOCS]
    with open(os.path.join(svg_dir, name), "w") as f:
        f.write(bar_chart_svg(f"reco_load QPS, {p} text, 200 items (whiskers: min-max over rounds)",
                              "OK responses per second", MALLOCS, TARGETS, values, whisk))
    return [f"![QPS per mode and malloc, {p} text](results/{name})", ""]


def bench_section(run, svg_dir):
    """reco_bench, the code path without the transport: how busy the machine was during
    each malloc's run, BM_Cycle's table and charts, and BM_Parse's table."""
    lines = ["## The code path alone: reco_bench", ""]
    others = {m: run.meta.get(f"bench_other_cpu_percent_{m}") for m in run.ran}
    if any(v is not None for v in others.values()):
        parts = ", ".join(f"{m} {v} %" for m, v in others.items() if v is not None)
        busy = [m for m, v in others.items() if v is not None and int(v) > 10]
        lines.append(f"Other processes' CPU during each malloc's reco_bench run (share of the machine; the "
                     f"machine's busy time minus reco_bench's own): {parts}." +
                     (f" **Disturbed (over 10 %): {', '.join(busy)}**: read those columns with care." if busy else
                      " None over 10 %."))
        lines.append("")
    return lines + cycle_table(run) + cycle_charts(run, svg_dir) + parse_table(run)


def cycle_table(run):
    """BM_Cycle, one whole server-side response, per mode, item count and text profile:
    µs of CPU per response under each malloc, and the exact allocation count."""
    lines = ["`BM_Cycle`: one whole server-side response (`Acquire` + `BuildResponse` + serialize + `Release`), "
             "in µs of CPU time per response (median of the repetitions); *allocs* is the exact allocation count "
             "per response (the same under every malloc).", ""]
    lines += table_head(["mode", "items", "profile"] + [f"{m} µs" for m in MALLOCS] + ["allocs"],
                        "lrl" + "r" * (len(MALLOCS) + 1))
    for profile in ("realistic", "compact"):
        for items in (10, 200, 1000):
            for mode in MODES:
                name = f"BM_Cycle/mode:{mode}/items:{items}/profile:{profile}"
                lines.append(f"| `{mode}` | {items} | {profile} | " + bench_cells(run.bench, run.ran, name, "cpu_time"))
    lines.append("")
    return lines


def cycle_charts(run, svg_dir):
    """Writes one BM_Cycle chart per text profile at 200 items (bars per malloc and mode)
    and returns the lines that show them; none when no malloc ran."""
    lines = []
    for profile in ("realistic", "compact"):
        if not run.ran:
            break
        name = f"cycle-200-{profile}.svg"
        key = {mode: f"BM_Cycle/mode:{mode}/items:200/profile:{profile}" for mode in MODES}
        values = [[micros(run.bench[m][key[mode]], "cpu_time") if m in run.ran and key[mode] in run.bench[m]
                   else None for mode in MODES] for m in MALLOCS]
        with open(os.path.join(svg_dir, name), "w") as f:
            f.write(bar_chart_svg(f"BM_Cycle, 200 items, {profile} text (lower is better)",
                                  "µs of CPU per response", MALLOCS, MODES, values))
        lines += [f"![BM_Cycle at 200 items, {profile} text](results/{name})", ""]
    return lines


def parse_table(run):
    """BM_Parse at 200 items, a client parsing the reply into each kind of message: µs of
    wall time per parse under each malloc, and the exact allocation count."""
    lines = ["`BM_Parse` at 200 items: a client parsing the reply's bytes into a heap message, a reused one, a "
             "fresh arena, or an arena with a reused initial block; µs of wall time per parse (manual timer):", ""]
    lines += table_head(["mode", "profile"] + [f"{m} µs" for m in MALLOCS] + ["allocs"],
                        "ll" + "r" * (len(MALLOCS) + 1))
    for profile in ("realistic", "compact"):
        for mode in MODES:
            name = f"BM_Parse/mode:{mode}/items:200/profile:{profile}/manual_time"
            lines.append(f"| `{mode}` | {profile} | " + bench_cells(run.bench, run.ran, name, "real_time"))
    lines.append("")
    return lines


def swap_section(run):
    """scripts/malloc_swap.sh's paired run, when the run has one: heap under every malloc
    and arena_pool under glibc against heap under glibc, one table per text profile."""
    if not run.swap:
        return []
    lines = ["## A malloc swap against an arena, paired (`scripts/malloc_swap.sh`)", ""]
    lines.append("The columns above come from separate runs, one malloc after another, so they cannot pair heap "
                 "under one malloc with heap under another. This run can: `heap` under every malloc and "
                 "`arena_pool` under glibc are targets of one reco_load run, driven in interleaved rounds; each "
                 "figure is the median of the per-round ratios to `heap` under glibc [min-max]. A spread that "
                 "includes 1.0 is no measurable difference.")
    lines.append("")
    for p, (s, doc) in run.swap.items():
        lines += swap_table(p, s, doc)
    return lines


def swap_table(p, s, doc):
    """One profile's swap: per server its QPS, CPU per RPC and p50 latency as paired ratios
    to heap under glibc, its process allocations, and the rounds marked as disturbed."""
    lines = [f"{p.capitalize()} text, 200 items, {doc['parameters'].get('rounds')} round(s):", ""]
    lines += table_head(["server", "QPS", "server CPU/RPC", "p50 latency", "process allocs/RPC"], "lrrrr")
    base = s.get("heap-glibc")
    for name, t in s.items():
        cells = [fmt(t["qps"], 0)] if name == "heap-glibc" else [
            f"{fmt(t['qps'], 0)} ({paired_ratio(t, base, 'qps') or 'n/a'})"]
        for key in ("server_cpu_us_per_rpc", "latency_p50_ms"):
            cells.append("baseline" if name == "heap-glibc" else paired_ratio(t, base, key) or "n/a")
        cells.append(fmt(t["process_allocs"], 0))
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    disturbed = [f"`{n}` round {r}" for n, t in s.items() for r in t["disturbed"]]
    if disturbed:
        lines.append("")
        lines.append("Rounds disturbed by other processes (reco_load's noise guard): " + ", ".join(disturbed) + ".")
    lines.append("")
    return lines


def median_spread(values, scale=1.0, unit=""):
    values = [v * scale for v in values]
    return f"{statistics.median(values):.0f}{unit} [{min(values):.0f}-{max(values):.0f}{unit}]"


def h2load_section(run):
    """scripts/compare_h2load.sh's paired run: each mode's share of the ceiling by
    h2load (which checks nothing and costs little) and by reco_load, and both clients'
    CPU per response, so a reader sees how much of a share is our client's own cost."""
    if not run.h2load:
        return ["## Share of the ceiling by h2load", "",
                "Not measured in this run: h2load (nghttp2-client) was not installed, the binaries carried a "
                "sanitizer, or the run is older than this section.", ""]
    modes = run.h2load["modes"]
    rounds = max((m["rounds"] for m in modes), default=0)
    lines = ["## Share of the ceiling by h2load (`scripts/compare_h2load.sh`)", ""]
    lines.append(f"Both clients against the same servers (glibc, realistic text, 200 items), back to back in each "
                 f"of {rounds} round(s); a share is a mode's req/s over the ceiling's in the same round by the "
                 f"same tool, median [min-max]. On a 2-core machine the client takes CPU from the server, so "
                 f"h2load's share is the one that depends least on the client.")
    lines.append("")
    lines += table_head(["mode", "h2load req/s", "share (h2load)", "share (reco_load)",
                         "client CPU/response h2load", "reco_load / h2load client CPU"], "lrrrrr")
    for m in modes:
        if not m["rounds"]:
            lines.append(f"| `{m['mode']}` | no paired round | | | | |")
            continue
        share = m.get("share_of_ceiling")
        cells = [fmt(statistics.median(m["rps"]["h2load"]), 0),
                 median_spread(share["h2load"], 100, " %") if share else "(the ceiling)",
                 median_spread(share["reco_load"], 100, " %") if share else "",
                 f"{statistics.median(m['client_cpu_us_per_response']['h2load']):.1f} µs",
                 ratio_text(statistics.median(m["client_cpu_ratio"]), min(m["client_cpu_ratio"]),
                            max(m["client_cpu_ratio"]))]
        lines.append(f"| `{m['mode']}` | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def summary_section(run):
    """Comparisons the renderer computes from the tables: per profile and malloc the
    memory mode with the most QPS, fragments and CPU against heap; per malloc the
    fastest BM_Cycle mode at 200 items."""
    lines = ["## Computed from the tables above", ""]
    lines.append("Mechanical comparisons, written by the renderer: a lead under ~10-20 % is within this shared "
                 "machine's noise (see the min-max columns), so read them as a summary of the tables, not as "
                 "verdicts.")
    lines.append("")
    for p in run.profiles:
        for m in run.ran:
            lines += service_summary(run.service[(m, p)], p, m)
    for m in run.ran:
        lines += cycle_summary(run.bench[m], m)
    lines.append("")
    return lines


def service_summary(s, p, m):
    """The summary lines of one profile under one malloc: the memory mode with the most
    QPS, fragments' QPS against heap's, and each mode's server CPU against heap's."""
    lines = []
    best = max(MODES, key=lambda t: s.get(t, {}).get("qps") or 0)
    heap = s.get("heap", {}).get("qps")
    ratio = f", {paired_ratio(s[best], s['heap'], 'qps')} heap's" if heap else ""
    share = f"{share_text(s[best])} of the ceiling" if s[best].get("share") is not None else ""
    lines.append(f"- {p} text, {m}: most QPS of the memory modes in `{best}` ({s[best]['qps']:,.0f}{ratio}; {share}).")
    frag = s.get("fragments")
    if frag and heap:
        fshare = f"; {share_text(frag)} of the ceiling" if frag.get("share") is not None else ""
        spread = paired_ratio(frag, s["heap"], "qps") or f"x{frag['qps'] / heap:.2f}"
        lines.append(f"- {p} text, {m}: `fragments` {frag['qps']:,.0f} QPS, {spread} heap's{fshare}.")
    heap_cpu = s.get("heap", {}).get("cpu")
    if heap_cpu:
        ratios = ", ".join(
            f"`{t}` {paired_ratio(s[t], s['heap'], 'server_cpu_us_per_rpc') or 'x%.2f' % (s[t]['cpu'] / heap_cpu)}"
            for t in MODES[1:] + ["fragments"] if s.get(t, {}).get("cpu"))
        lines.append(f"- {p} text, {m}: server CPU per RPC against heap's ({heap_cpu:,.0f} µs), median of the "
                     f"per-round ratios [min-max]: {ratios}.")
    return lines


def cycle_summary(bench, m):
    """Per text profile under one malloc: the fastest mode in BM_Cycle at 200 items and its
    time as a share of heap's (nothing when a mode's run is missing)."""
    lines = []
    for profile in ("realistic", "compact"):
        cyc = {mode: bench.get(f"BM_Cycle/mode:{mode}/items:200/profile:{profile}") for mode in MODES}
        if all(cyc.values()):
            fastest = min(MODES, key=lambda mode: cyc[mode]["cpu_time"])
            rel = cyc[fastest]["cpu_time"] / cyc["heap"]["cpu_time"]
            lines.append(f"- BM_Cycle 200 items, {profile}, {m}: fastest `{fastest}` "
                         f"({micros(cyc[fastest], 'cpu_time'):,.0f} µs, {rel * 100:.0f} % of heap's time).")
    return lines


def raw_note(results, archive, page_dir):
    """Where the run's raw JSON is: the results folder (relative to the repository when
    inside it) and, with --archive, the gzipped copy kept beside the page."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    raw = os.path.relpath(os.path.abspath(results), root)
    raw = os.path.abspath(results) if raw.startswith("..") else raw
    lines = [f"Raw JSON (reco_bench and reco_load outputs, server logs): `{raw}` "
             "on the machine that ran it (git-ignored)."]
    if archive:
        link = os.path.relpath(os.path.abspath(archive), page_dir)
        lines.append(f"The run's JSON is kept, gzipped, in [{link}]({link}) (`bench/matrix.sh --archive`); "
                     f"`bench/matrix_page.py` rebuilds this page from it once unzipped.")
    return lines


def main():
    args = parse_args()
    run = read_run(args.results)
    page_dir = os.path.dirname(os.path.abspath(args.page))
    svg_dir = os.path.join(page_dir, "results")
    os.makedirs(svg_dir, exist_ok=True)
    lines = (page_head(run) + setup_table(run) + service_section(run, svg_dir) + bench_section(run, svg_dir)
             + swap_section(run) + h2load_section(run) + summary_section(run)
             + raw_note(args.results, args.archive, page_dir))
    with open(args.page, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"matrix_page: wrote {args.page} and {len(os.listdir(svg_dir))} SVG file(s) in {svg_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
