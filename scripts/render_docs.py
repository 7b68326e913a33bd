#!/usr/bin/python3
"""Renders README.md and docs/FINDINGS.md from their templates in docs/src/, every
figure taken from the kept result files under docs/results/ or from running
tools/alloc_ledger, so that a figure has one source and cannot drift.

    scripts/render_docs.py [--build DIR]            rewrite README.md and docs/FINDINGS.md
    scripts/render_docs.py --check [--build DIR]    exit 1, with a diff, when either differs
                                                    from what the kept results render
    scripts/render_docs.py --screenshot [--build DIR]
                                                    also redraw docs/report-screenshot.png
                                                    from the kept run's JSON

Exit 2, naming the cause, for a template error (a hand-typed figure, an unknown run,
target or figure), a relative link to a missing file or heading, or a page of docs/
that README.md does not link to.

A template is Markdown with placeholders, {{KIND ARG...}}:
    {{ratio RUN TARGET FIGURE}}   the paired per-round ratio to the run's baseline,
                                  "x0.51 [0.50-0.54]", with "(no measurable difference)"
                                  appended when the spread includes 1.0
    {{value RUN TARGET FIGURE}}   the figure over the run's rounds, e.g. "1,306"
    {{share RUN TARGET}}          the QPS share of the ceiling, median [min-max]
    {{freeshare RUN TARGET}}      glibc's free bytes as a share of its heap (median of rounds)
    {{freeratio RUN TARGET}}      that share's paired per-round ratio to the baseline
    {{pairratio RUN TARGET BASELINE FIGURE}}
                                  TARGET over another target of the run, round by round
    {{scaling RUN MODE ITEMS}}    per-item server CPU at ITEMS against the base item count
                                  (a scaling.json of scripts/scaling.sh)
    {{scalingus RUN MODE WHAT ITEMS}}  the same run's us per item at ITEMS, median of the
                                  rounds: WHAT cpu (server CPU) or a server phase's wall
                                  time (build, serialize, release)
    {{scalingpair RUN MODE BASELINE ITEMS}}  MODE's server CPU per RPC over BASELINE's at
                                  ITEMS items, round by round, median [min-max]
    {{ledger PROFILE MODE PHASE}} mallocs per reply, exact (alloc_ledger, 200 items)
    {{machine RUN}} {{date RUN}} {{rounds RUN}}
    {{timing}}                    the README commands' fresh-clone times (scripts/fresh_clone_times.sh)
    {{sources}}                   a table: each run the document quotes, its file and command
RUN is a name in RUNS below. A figure typed by hand in a template (a ratio, a spread,
a percentage, a count with a thousands separator) is an error: it would not be checked.
"""
import argparse
import difflib
import gzip
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
DOCUMENTS = {"docs/src/README.md.in": "README.md", "docs/src/FINDINGS.md.in": "docs/FINDINGS.md"}
# The kept run whose HTML report (kept beside its JSON) docs/report-screenshot.png shows.
SCREENSHOT_RUN = "run-report"
TIMING = "intel-xeon-2026-12-07/fresh-clone-times.json"

# name -> (file under docs/results, the repo command that wrote it)
RUNS = {
    "run-report": ("amd-epyc-2026-12-02/run-report.json.gz", "scripts/run.sh"),
    "swap-realistic": ("intel-xeon-2026-12-07/matrix/swap/swap-realistic.json.gz",
                       "scripts/malloc_swap.sh (bench/matrix.sh --rounds 5 runs it)"),
    "swap-compact": ("intel-xeon-2026-12-07/matrix/swap/swap-compact.json.gz",
                     "scripts/malloc_swap.sh (bench/matrix.sh --rounds 5 runs it)"),
    # The malloc swap on the AMD EPYC VM, where glibc's mxfast tunable did nothing measurable.
    "swap-realistic-epyc": ("amd-epyc-2026-12-02/swap/swap-realistic.json.gz", "scripts/malloc_swap.sh"),
    "swap-compact-epyc": ("amd-epyc-2026-12-02/swap/swap-compact.json.gz", "scripts/malloc_swap.sh"),
    "slices-realistic": ("amd-epyc-2026-12-01/fragments_slices/fragments_slices_realistic.json.gz",
                         "scripts/fragments_slices.sh"),
    "slices-compact": ("amd-epyc-2026-12-01/fragments_slices/fragments_slices_compact.json.gz",
                       "scripts/fragments_slices.sh"),
    "inbox-short": ("intel-xeon-2026-12-07/your_service-short.json.gz", "ROUNDS=5 scripts/your_service.sh"),
    "inbox-long": ("intel-xeon-2026-12-07/your_service-long.json.gz",
                   "ROUNDS=5 LONG_TEXT=true scripts/your_service.sh"),
    "metrics-cost": ("amd-epyc-2026-12-02/metrics-cost.json.gz", "scripts/metrics_cost.sh"),
    "mutex-detection": ("amd-epyc-2026-12-02/mutex-detection.json.gz", "scripts/mutex_detection_cost.sh"),
    "arena-alias": ("intel-xeon-2026-12-07/arena-alias.json.gz", "scripts/arena_alias_cost.sh"),
    "scaling-v4": ("amd-epyc-2026-12-03/scaling-v4/scaling.json.gz",
                   'MODES="ceiling heap arena_pool fragments" scripts/scaling.sh'),
    "scaling-v64": ("amd-epyc-2026-12-03/scaling-v64-12r/scaling.json.gz",
                    'VARIANTS=64 ROUNDS=12 MODES="ceiling heap arena_pool arena_alias fragments" '
                    'scripts/scaling.sh'),
    "scaling-v64-xeon": ("intel-xeon-2026-12-07/scaling-v64-12r/scaling.json.gz",
                         'VARIANTS=64 ROUNDS=12 MODES="ceiling heap arena_pool arena_alias fragments" '
                         'scripts/scaling.sh'),
    "scaling-v64-second-vm": ("amd-epyc-2026-12-04/scaling-v64-12r/scaling.json.gz",
                              'VARIANTS=64 ROUNDS=12 MODES="ceiling heap arena_pool arena_alias fragments" '
                              'scripts/scaling.sh (each mode\'s sizes back to back)'),
    "scaling-v64-second-vm-earlier": ("amd-epyc-2026-12-04/scaling-v64-12r-earlier/scaling.json.gz",
                                      'VARIANTS=64 ROUNDS=12 MODES="ceiling heap arena_pool arena_alias fragments" '
                                      'scripts/scaling.sh (the same VM, before reports named the CPU signature)'),
    "scaling-v64-before-prefetch": ("amd-epyc-2026-12-03/scaling-v64-12r-before-prefetch/scaling.json.gz",
                                    'VARIANTS=64 ROUNDS=12 MODES="ceiling heap arena_pool arena_alias fragments" '
                                    'scripts/scaling.sh (before fragments read ahead)'),
    "scaling-v64-mxfast0": ("amd-epyc-2026-12-03/scaling-v64-mxfast0/scaling.json.gz",
                            'GLIBC_TUNABLES=glibc.malloc.mxfast=0 VARIANTS=64 MODES="heap arena_pool" '
                            'scripts/scaling.sh'),
    "swap-10k": ("amd-epyc-2026-12-03/swap-10k/swap-realistic.json.gz",
                 "scripts/malloc_swap.sh --items 10000 --profiles realistic"),
    "scaling-v64-compact": ("amd-epyc-2026-12-03/scaling-v64-compact/scaling.json.gz",
                            'PROFILE=compact VARIANTS=64 MODES="ceiling heap arena_pool fragments" scripts/scaling.sh'),
    "arena-growth": ("amd-epyc-2026-12-02/arena-growth.json.gz", "scripts/arena_growth.sh"),
}
for _malloc in ("glibc", "tcmalloc", "jemalloc", "mimalloc"):
    for _profile in ("realistic", "compact"):
        RUNS[f"matrix-{_malloc}-{_profile}"] = (
            f"intel-xeon-2026-12-07/matrix/{_malloc}/load-{_profile}.json.gz", "bench/matrix.sh --rounds 5")
        # The same matrix on the other machines measured, for README's table by machine.
        RUNS[f"matrix-epyc-{_malloc}-{_profile}"] = (
            f"amd-epyc-2026-12-01/matrix/{_malloc}/load-{_profile}.json.gz", "bench/matrix.sh")
        RUNS[f"matrix-epyc2-{_malloc}-{_profile}"] = (
            f"amd-epyc-2026-12-03/matrix/{_malloc}/load-{_profile}.json.gz", "bench/matrix.sh")
for _depth in (1, 16, 64):
    RUNS[f"claims-c{_depth}"] = (f"intel-xeon-2026-12-07/claims/claims-c{_depth}.json.gz",
                                 "scripts/published_claims.sh")

PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}")
# What a hand-typed figure looks like: x0.51, [0.50-0.54], 24 %, 5,011.
HAND_FIGURE = re.compile(r"\bx\d+\.\d|\[\d+(\.\d+)?-\d|\b\d+(\.\d+)? ?%|\b\d{1,3}(,\d{3})+\b")


class TemplateError(Exception):
    pass


class Figures:
    """Loads runs and ledgers on first use and formats the placeholders' figures."""

    def __init__(self, build):
        self.build = Path(build)
        self.runs = {}
        self.ledgers = {}
        self.quoted = []

    def run(self, name):
        if name not in RUNS:
            raise TemplateError(f"unknown run '{name}' (known: {', '.join(sorted(RUNS))})")
        if name not in self.runs:
            path = RESULTS / RUNS[name][0]
            if not path.exists():
                raise TemplateError(f"run '{name}': {path.relative_to(ROOT)} is missing")
            with gzip.open(path, "rt") as f:
                self.runs[name] = json.load(f)
        if name not in self.quoted:
            self.quoted.append(name)
        return self.runs[name]

    def target(self, run, name):
        for t in self.run(run)["targets"]:
            if t["name"] == name:
                return t
        names = [t["name"] for t in self.run(run)["targets"]]
        raise TemplateError(f"run '{run}' has no target '{name}' (it has {', '.join(names)})")

    def ledger(self, profile):
        if profile not in self.ledgers:
            binary = self.build / "tools" / "alloc_ledger"
            if not binary.exists():
                raise TemplateError(f"{binary} is missing: build first (scripts/build.sh)")
            out = subprocess.run([str(binary), "--format", "json", "--profile", profile],
                                 check=True, capture_output=True, text=True).stdout
            self.ledgers[profile] = json.loads(out)
        return self.ledgers[profile]


def spread(median, lo, hi):
    text = f"x{median:.2f} [{lo:.2f}-{hi:.2f}]"
    return text if lo > 1.0 or hi < 1.0 else text + " (no measurable difference)"


def number(value):
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def percent(value):
    return f"{value * 100:.0f}%"


def free_shares(target):
    shares = []
    for r in target["rounds"]:
        heap = (r.get("server") or {}).get("malloc_heap") or {}
        if not heap.get("available") or not heap.get("arena_bytes"):
            raise TemplateError(f"target '{target['name']}' has no glibc heap figures")
        shares.append(heap["free_bytes"] / heap["arena_bytes"])
    return shares


def render_ratio(fig, run, target, figure):
    ratio = fig.target(run, target)["ratios_to_baseline"].get(figure)
    if not ratio:
        raise TemplateError(f"run '{run}', target '{target}': no ratio for '{figure}'")
    return spread(ratio["median"], ratio["min"], ratio["max"])


def render_pairratio(fig, run, target, baseline, figure):
    """TARGET over BASELINE, round by round, for two targets of one run (neither the
    report's own baseline, e.g. arena_pool under a tuned glibc against arena_pool)."""
    pairs = zip(fig.target(run, target)["rounds"], fig.target(run, baseline)["rounds"])
    ratios = [t["figures"][figure] / b["figures"][figure] for t, b in pairs
              if t["figures"].get(figure) and b["figures"].get(figure)]
    if not ratios:
        raise TemplateError(f"run '{run}': no rounds of '{target}' and '{baseline}' with '{figure}'")
    return spread(statistics.median(ratios), min(ratios), max(ratios))


def render_scaling(fig, run, mode, items):
    try:
        r = fig.run(run)["per_item_ratios"][mode][items]
    except KeyError:
        raise TemplateError(f"run '{run}' has no per-item ratio for '{mode}' at {items} items")
    if not r["rounds"]:
        raise TemplateError(f"run '{run}': '{mode}' served no calls at {items} items in any round")
    return spread(r["median"], r["min"], r["max"])


def render_scaling_us(fig, run, mode, what, items):
    """Server CPU (WHAT cpu) or a phase's wall time per item, scaling.sh's median over the rounds."""
    summary = fig.run(run)
    try:
        value = (summary["per_item_us"][mode][items] if what == "cpu"
                 else summary["phase_us_per_item"][mode][items][what])
    except KeyError:
        raise TemplateError(f"run '{run}' has no '{what}' us per item for '{mode}' at {items} items")
    if value is None:
        raise TemplateError(f"run '{run}': '{mode}' has no '{what}' figure at {items} items")
    return f"{number(value)} us"


def render_scaling_pair(fig, run, mode, baseline, items):
    try:
        by_round = fig.run(run)["cpu_us_per_rpc_by_round"]
        pairs = zip(by_round[mode][items], by_round[baseline][items])
    except KeyError:
        raise TemplateError(f"run '{run}' has no rounds of '{mode}' and '{baseline}' at {items} items")
    ratios = [a / b for a, b in pairs if a and b]
    if not ratios:
        raise TemplateError(f"run '{run}': no round where '{mode}' and '{baseline}' both served {items} items")
    return spread(statistics.median(ratios), min(ratios), max(ratios))


def render_value(fig, run, target, figure):
    value = fig.target(run, target)["figures"].get(figure)
    if value is None:
        raise TemplateError(f"run '{run}', target '{target}': no figure '{figure}'")
    return number(value)


def render_share(fig, run, target):
    share = fig.target(run, target)["share_of_ceiling"]["qps"]
    return f"{share['median'] * 100:.0f}% [{share['min'] * 100:.0f}-{share['max'] * 100:.0f}%]"


def render_freeshare(fig, run, target):
    return percent(statistics.median(free_shares(fig.target(run, target))))


def render_freeratio(fig, run, target):
    baseline = fig.run(run)["parameters"]["baseline"]
    ratios = [t / b for t, b in zip(free_shares(fig.target(run, target)),
                                    free_shares(fig.target(run, baseline)))]
    return spread(statistics.median(ratios), min(ratios), max(ratios))


def render_ledger(fig, profile, mode, phase):
    try:
        return f"{fig.ledger(profile)['modes'][mode][phase]['allocs']:,.0f}"
    except KeyError:
        raise TemplateError(f"the ledger has no '{mode}' '{phase}' for profile '{profile}'")


def render_machine(fig, run):
    env = fig.run(run)["environment"]
    return env["cpu_model"] + (f" ({env['cpu_signature']})" if env.get("cpu_signature") else "")


def render_date(fig, run):
    return fig.run(run)["environment"]["started_utc"][:10]


def render_rounds(fig, run):
    return str(fig.run(run)["parameters"]["rounds"])


def render_timing(fig):
    path = RESULTS / TIMING
    if not path.exists():
        raise TemplateError(f"{path.relative_to(ROOT)} is missing (scripts/fresh_clone_times.sh writes it)")
    t = json.loads(path.read_text())
    if any(t["exit_status"].values()):
        raise TemplateError(f"{path.relative_to(ROOT)}: a command failed ({t['exit_status']})")
    minutes = {name: round(seconds / 60) for name, seconds in t["seconds"].items()}
    cache = t.get("compiler_cache")
    if cache is None:
        built = ""
    elif cache["disabled"] or cache["hits"] == 0:
        built = ", compiling every file"
    else:
        built = (f", the compiler cache warm ({cache['hits']:,} of {cache['hits'] + cache['misses']:,} "
                 f"compiles were hits)")
    cpu = re.sub(r"\((R|TM)\)", "", t["cpu_model"]).replace(" Processor", "")  # lscpu's "Intel(R) Xeon(R) Processor"
    return (f"From a fresh clone on the 2-core {cpu} VM, with the packages already "
            f"installed{built}, `scripts/run.sh` took about {minutes['run']} minutes and `scripts/test.sh` "
            f"about {minutes['test']} ({t['date']}, `scripts/fresh_clone_times.sh`); the first "
            f"`apt-get install` adds what the mirror takes.")


RENDERERS = {"ratio": render_ratio, "value": render_value, "share": render_share,
             "freeshare": render_freeshare, "freeratio": render_freeratio,
             "ledger": render_ledger, "machine": render_machine, "date": render_date,
             "rounds": render_rounds, "pairratio": render_pairratio, "scaling": render_scaling,
             "scalingus": render_scaling_us,
             "scalingpair": render_scaling_pair}


def sources_table(fig):
    rows = ["| run | kept result | command | machine, date | rounds |", "|---|---|---|---|---|"]
    for name in fig.quoted:
        path, command = RUNS[name]
        rows.append(f"| {name} | [{path}](results/{path}) | `{command}` | "
                    f"{render_machine(fig, name)}, {render_date(fig, name)} | {render_rounds(fig, name)} |")
    return "\n".join(rows)


def render(template, fig, where):
    def one(match):
        words = match.group(1).split()
        kind, args = words[0], words[1:]
        if kind == "sources":
            return sources_table(fig)
        if kind == "timing":
            return render_timing(fig)
        if kind not in RENDERERS:
            raise TemplateError(f"unknown placeholder kind '{kind}' in {{{{{match.group(1)}}}}}")
        try:
            return RENDERERS[kind](fig, *args)
        except TypeError:
            raise TemplateError(f"wrong arguments in {{{{{match.group(1)}}}}}")

    lines = []
    for number_, line in enumerate(template.splitlines(keepends=True), 1):
        hand = HAND_FIGURE.search(PLACEHOLDER.sub("", line))
        if hand and "<!-- not a figure -->" not in line:
            raise TemplateError(f"{where}:{number_}: '{hand.group(0)}' typed by hand; use a placeholder")
        try:
            lines.append(PLACEHOLDER.sub(one, line).replace(" <!-- not a figure -->", ""))
        except TemplateError as e:
            raise TemplateError(f"{where}:{number_}: {e}")
    return "".join(lines)


LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)")


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def broken_links(text, out, rendered):
    """Relative links of a rendered document whose file or heading does not exist;
    a document being rendered is judged by its rendered text."""
    broken = []
    base = (ROOT / out).parent
    for target, anchor in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path = ((base / target) if target else ROOT / out).resolve()
        name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else None
        if name not in rendered and not path.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and path.suffix == ".md":
            body = rendered[name] if name in rendered else path.read_text()
            headings = [slug(h) for h in re.findall(r"^#+ (.*)$", body, re.M)]
            if anchor not in headings:
                broken.append(f"{target}#{anchor} (no such heading)")
    return broken


HEADER = "<!-- Rendered by scripts/render_docs.py from {src}: edit that file, then run the script. -->\n"


def render_all(fig):
    """{output path: rendered text} for every document; raises TemplateError."""
    rendered = {}
    for src, out in DOCUMENTS.items():
        fig.quoted = []
        rendered[out] = HEADER.format(src=src) + render((ROOT / src).read_text(), fig, src)
    return rendered


def link_problems(rendered):
    """Broken relative links, and the pages of docs/ README.md does not link to."""
    problems = []
    for out, text in rendered.items():
        broken = broken_links(text, out, rendered)
        if broken:
            problems.append(f"{out} links to " + "; ".join(broken))
    unlinked = [p.name for p in sorted((ROOT / "docs").glob("*.md"))
                if f"](docs/{p.name}" not in rendered["README.md"]]
    if unlinked:
        problems.append(f"README.md does not link to docs/{', docs/'.join(unlinked)}")
    return problems


def write_or_diff(rendered, check):
    """Writes what changed, or with `check` prints its diff; True when anything differs."""
    differ = False
    for out, text in rendered.items():
        current = (ROOT / out).read_text() if (ROOT / out).exists() else ""
        if text == current:
            continue
        differ = True
        if check:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), text.splitlines(True), out, f"{out} (rendered)"))
        else:
            (ROOT / out).write_text(text)
            print(f"render_docs: wrote {out}")
    return differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--screenshot", action="store_true", help="also redraw the screenshot")
    parser.add_argument("--build", default=str(ROOT / "build"), help="build directory (alloc_ledger)")
    args = parser.parse_args()
    try:
        rendered = render_all(Figures(args.build))
    except TemplateError as e:
        print(f"render_docs: {e}", file=sys.stderr)
        return 2
    problems = link_problems(rendered)
    for problem in problems:
        print(f"render_docs: {problem}", file=sys.stderr)
    if problems:
        return 2
    differ = write_or_diff(rendered, args.check)
    if args.screenshot:
        html = RESULTS / RUNS[SCREENSHOT_RUN][0].replace(".json.gz", ".html.gz")
        subprocess.run([str(ROOT / "scripts" / "screenshot_report.sh"), str(html)], check=True)
    if differ and args.check:
        print("render_docs: the figures above differ from what the kept results give; "
              "edit docs/src/*.md.in, then run scripts/render_docs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
