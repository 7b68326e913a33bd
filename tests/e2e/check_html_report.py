"""Checks what headless chromium made of reco_load's HTML report (html_report_test.sh).

    check_html_report.py DOM.html SCREENSHOT.png TABLE.txt

DOM.html is chromium's --dump-dom of the report of two targets (heap, arena_pool),
both with server figures: it must open with the verdict line for arena_pool (the
same words as the last line of TABLE.txt, reco_load's terminal table), then hold the
six SVG charts by their ids (client/report/report_charts.h) with their bars, lines and
round dots, the warnings (if any) folded in a <details> below the charts, both
target names and no script. SCREENSHOT.png is chromium's screenshot at 1,400 px
wide: decoded here (no image library needed), its first 900 rows (the first screen)
must show more than 10,000 pixels of each of the two targets' colours, #1f77b4 and
#d62728 (the bars were drawn in their target's colour, on the first screen). Prints every failed
check and exits 1, or prints a summary.
"""
import html
import re
import struct
import sys
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


CHART_IDS = ["chart-server-cpu", "chart-qps", "chart-allocs", "chart-latency", "chart-round-qps", "chart-phases"]
# A ratio in the verdict's words: "x0.54 [0.52-0.55] WHAT" or "no measurable difference in WHAT [0.95-1.10]".
RATIO = r"(x\d+\.\d\d \[\d+\.\d\d-\d+\.\d\d\] {0}|no measurable difference in {0} \[\d+\.\d\d-\d+\.\d\d\])"
VERDICT = re.compile("arena_pool: " + RATIO.format("server CPU per RPC") + ", " + RATIO.format("QPS") + "$")


def verdict_problems(dom, table):
    """The verdict: first in the page, the same lines as the table's last two (the
    target's, then the noise guard's)."""
    lines = [html.unescape(m) for m in re.findall(r'<li class="verdict-line">(.*?)</li>', dom)]
    noise = [html.unescape(m) for m in re.findall(r'<li class="verdict-noise">(.*?)</li>', dom)]
    before, last = [line.strip() for line in table.rstrip("\n").split("\n")[-2:]]
    checks = [
        (len(lines) == 1 and VERDICT.match(lines[0]),
         f"one verdict line for arena_pool in the verdict's words, got {lines}"),
        (lines[:1] == [before], f"the table's line {before!r} is the HTML's verdict line"),
        (noise == [last] and re.match(r"noise guard: \d+ of \d+ measured rounds disturbed", last),
         f"the table's last line {last!r} is the HTML's noise guard line, counting the rounds, got {noise}"),
        (0 <= dom.find('id="verdict"') < dom.find("<svg"), "the verdict before the first chart"),
    ]
    return [what for ok, what in checks if not ok]


def chart_problems(dom):
    """Each of the six charts drawn, by its id; its marks counted."""
    svgs = {i: re.search(r'<svg[^>]*\bid="%s"[^>]*>(.*?)</svg>' % i, dom, re.S) for i in CHART_IDS}
    problems = [f"chart {i} drawn as an <svg>" for i, m in svgs.items() if not m]
    if problems:
        return problems

    def marks(i, what):
        return svgs[i].group(1).count(what)
    checks = [
        (marks("chart-server-cpu", 'class="bar"') == 2, "server CPU: a bar per target"),
        (marks("chart-qps", 'class="bar"') == 2, "QPS: a bar per target"),
        (marks("chart-allocs", 'class="bar"') == 4, "allocations: build and whole process per target"),
        (marks("chart-latency", 'class="series"') == 2, "latency: a curve per target"),
        ("(log scale)" in svgs["chart-latency"].group(1), "latency on a log axis"),
        (marks("chart-round-qps", 'class="point"') == 2 * 2, "QPS of each round: a dot per target and round"),
        (marks("chart-phases", 'class="bar"') >= 2 * 2, "phases: build and serialize p99 per target"),
        (all(marks(i, 'class="legend"') == 1 for i in CHART_IDS), "a legend in every chart"),
    ]
    return [what for ok, what in checks if not ok]


def dom_problems(dom, table):
    problems = verdict_problems(dom, table) + chart_problems(dom)
    warnings = dom.find('<details class="warnings"')
    checks = [
        (warnings == -1 or warnings > dom.rfind("</svg>"), "the warnings folded below the charts"),
        ('class="warn"' not in dom[:dom.rfind("</svg>")], "no warning above the charts"),
        ("heap" in dom and "arena_pool" in dom, "both target names"),
        ("<script" not in dom, "no scripts"),
    ]
    return problems + [what for ok, what in checks if not ok]


def unfilter(raw, width, height, channels):
    """The PNG's rows of bytes, its per-row filters (none, sub, up, average, Paeth) undone."""
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return rows


def decode_png(data, problems):
    """(rows, width, height, channels) of an 8-bit RGB or RGBA, non-interlaced PNG (what
    chromium writes); what does not hold goes to problems."""
    if data[:8] != PNG_SIGNATURE:
        problems.append("a PNG screenshot")
    pos, idat, width, height, channels = 8, b"", 0, 0, None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            channels = {2: 3, 6: 4}.get(ctype)
            if not (depth == 8 and channels is not None):
                problems.append(f"an 8-bit RGB(A) PNG (depth {depth}, type {ctype})")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return unfilter(zlib.decompress(idat), width, height, channels), width, height, channels


def count_colour(rows, channels, rgb):
    """Pixels within 12 of rgb in every channel."""
    n = 0
    for line in rows:
        for x in range(0, len(line), channels):
            if all(abs(line[x + k] - rgb[k]) <= 12 for k in range(3)):
                n += 1
    return n


def main():
    problems = dom_problems(open(sys.argv[1]).read(), open(sys.argv[3]).read())
    rows, width, height, channels = decode_png(open(sys.argv[2], "rb").read(), problems)
    first_screen = rows[:900]
    blue = count_colour(first_screen, channels, (0x1f, 0x77, 0xb4))
    red = count_colour(first_screen, channels, (0xd6, 0x27, 0x28))
    if width != 1400:
        problems.append(f"a screenshot 1400 px wide ({width})")
    # Bars, not just lines: each target's bars are in its colour (a curve is ~2,000 pixels).
    if blue <= 10000:
        problems.append(f"heap's blue bars on the first screen ({blue} pixels)")
    if red <= 10000:
        problems.append(f"arena_pool's red bars on the first screen ({red} pixels)")
    if problems:
        print("FAIL: " + "; ".join(problems))
        sys.exit(1)
    print(f"HTML report: the verdict, then 6 charts in chromium's DOM; screenshot {width}x{height}, its first "
          f"screen with {blue} blue and {red} red pixels")


if __name__ == "__main__":
    main()
