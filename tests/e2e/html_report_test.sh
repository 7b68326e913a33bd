#!/usr/bin/env bash
# The HTML report renders in a real browser: Debian's chromium, headless. Two real
# reco_server processes on 127.0.0.1:0, a short reco_load run writing the report,
# then chromium (1) dumps the DOM, which must hold the three SVG charts with their
# lines and bars, and (2) takes a screenshot, whose pixels must show the chart
# colours (the charts were drawn, not just parsed). chromium missing is a FAILURE:
# scripts/setup.sh installs it.
#   html_report_test.sh RECO_SERVER RECO_LOAD
# SCREENSHOT_DIR=dir keeps the screenshot and report for a human to look at.
set -u
server_bin=$1 load_bin=$2
chromium_bin=$(command -v chromium || true)
if [ -z "$chromium_bin" ]; then
  echo "FAIL: chromium is not installed (package 'chromium'; scripts/setup.sh installs it)"
  exit 1
fi
work=$(mktemp -d)
. "$(dirname "$0")/../../scripts/lib/reco_servers.sh"
trap 'stop_reco_servers; rm -rf "$work"' EXIT

targets=()
for mode in heap arena_pool; do
  start_reco_server "$work/$mode.log" "$server_bin" --mode "$mode" ||
    { echo "FAIL: reco_server --mode $mode did not start (its output is above)"; exit 1; }
  targets+=(--target "$mode=127.0.0.1:$SERVER_PORT")
done
"$load_bin" "${targets[@]}" --duration 700ms --warmup 200ms --rounds 2 --concurrency 4 --items 50 --quiet \
  --html "$work/report.html" >"$work/table.txt" 2>&1 || { echo "FAIL: reco_load: $(cat "$work/table.txt")"; exit 1; }

browser=(timeout 120 "$chromium_bin" --headless --no-sandbox --disable-gpu --no-first-run
         --disable-background-networking --disable-component-update --disable-sync
         --user-data-dir="$work/profile")
"${browser[@]}" --dump-dom "file://$work/report.html" >"$work/dom.html" 2>"$work/chromium.log" ||
  { echo "FAIL: chromium --dump-dom: $(tail -5 "$work/chromium.log")"; exit 1; }
"${browser[@]}" --hide-scrollbars --window-size=1050,1300 --screenshot="$work/shot.png" "file://$work/report.html" \
  >>"$work/chromium.log" 2>&1 || { echo "FAIL: chromium --screenshot: $(tail -5 "$work/chromium.log")"; exit 1; }
if [ -n "${SCREENSHOT_DIR:-}" ]; then cp "$work/shot.png" "$work/report.html" "$SCREENSHOT_DIR/"; fi

/usr/bin/python3 - "$work/dom.html" "$work/shot.png" <<'PY'
import re, struct, sys, zlib

dom = open(sys.argv[1]).read()
fails = []
def check(ok, what):
    if not ok: fails.append(what)

check(dom.count("<svg") == 3, f"3 <svg> charts in the DOM, found {dom.count('<svg')}")
check(dom.count('class="series"') == 2, "two latency curves (heap, arena_pool)")
check(len(re.findall(r'<rect class="bar"', dom)) >= 2 + 2 * 3,
      "QPS bars and at least 3 allocation bars per target (build, serialize, process)")
check("heap" in dom and "arena_pool" in dom, "both target names")
check("<script" not in dom, "no scripts")

# Decode the PNG (8-bit RGB or RGBA, non-interlaced: what chromium writes) and count
# pixels of the first two series colours, #1f77b4 and #d62728.
data = open(sys.argv[2], "rb").read()
check(data[:8] == b"\x89PNG\r\n\x1a\n", "a PNG screenshot")
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        channels = {2: 3, 6: 4}.get(ctype)
        check(depth == 8 and channels is not None, f"an 8-bit RGB(A) PNG (depth {depth}, type {ctype})")
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw = zlib.decompress(idat)
stride = width * channels
rows, prev = [], bytearray(stride)
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b, c = prev[i], prev[i - channels] if i >= channels else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
def count(rgb):
    n = 0
    for line in rows:
        for x in range(0, stride, channels):
            if all(abs(line[x + k] - rgb[k]) <= 12 for k in range(3)): n += 1
    return n
blue, red = count((0x1f, 0x77, 0xb4)), count((0xd6, 0x27, 0x28))
check(blue > 500, f"the first series' blue drawn ({blue} pixels)")
check(red > 500, f"the second series' red drawn ({red} pixels)")
if fails:
    print("FAIL: " + "; ".join(fails)); sys.exit(1)
print(f"HTML report: 3 charts in chromium's DOM; screenshot {width}x{height} with {blue} blue and {red} red pixels")
PY
