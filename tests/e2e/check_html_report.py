"""Checks what headless chromium made of reco_load's HTML report (html_report_test.sh).

    check_html_report.py DOM.html SCREENSHOT.png

DOM.html is chromium's --dump-dom of the report of two targets (heap, arena_pool): it
must hold the three SVG charts, the two latency curves, the QPS and allocation bars,
both target names and no script. SCREENSHOT.png is chromium's screenshot: decoded
here (no image library needed), it must show more than 500 pixels of each of the
first two series colours, #1f77b4 and #d62728 (the charts were drawn, not just
parsed). Prints every failed check and exits 1, or prints a summary.
"""
import re
import struct
import sys
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def dom_problems(dom):
    checks = [
        (dom.count("<svg") == 3, f"3 <svg> charts in the DOM, found {dom.count('<svg')}"),
        (dom.count('class="series"') == 2, "two latency curves (heap, arena_pool)"),
        (len(re.findall(r'<rect class="bar"', dom)) >= 2 + 2 * 3,
         "QPS bars and at least 3 allocation bars per target (build, serialize, process)"),
        ("heap" in dom and "arena_pool" in dom, "both target names"),
        ("<script" not in dom, "no scripts"),
    ]
    return [what for ok, what in checks if not ok]


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
    problems = dom_problems(open(sys.argv[1]).read())
    rows, width, height, channels = decode_png(open(sys.argv[2], "rb").read(), problems)
    blue, red = count_colour(rows, channels, (0x1f, 0x77, 0xb4)), count_colour(rows, channels, (0xd6, 0x27, 0x28))
    if blue <= 500:
        problems.append(f"the first series' blue drawn ({blue} pixels)")
    if red <= 500:
        problems.append(f"the second series' red drawn ({red} pixels)")
    if problems:
        print("FAIL: " + "; ".join(problems))
        sys.exit(1)
    print(f"HTML report: 3 charts in chromium's DOM; screenshot {width}x{height} with {blue} blue and {red} red pixels")


if __name__ == "__main__":
    main()
