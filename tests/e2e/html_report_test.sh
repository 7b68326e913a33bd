#!/usr/bin/env bash
# The HTML report renders in a real browser: Debian's chromium, headless. Two real
# reco_server processes on 127.0.0.1:0, a short reco_load run writing the report,
# then chromium (1) dumps the DOM, which must open with the verdict (the same line as
# the terminal table's last) and hold the six SVG charts with their bars, lines and
# dots, and (2) takes a screenshot at 1,400 px wide, whose first screen must show the
# targets' colours (the charts were drawn, not just parsed; check_html_report.py
# says what exactly). chromium missing is a FAILURE:
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
  --html "$work/report.html" >"$work/table.txt" 2>"$work/stderr.txt" ||
  { echo "FAIL: reco_load: $(cat "$work/table.txt" "$work/stderr.txt")"; exit 1; }

browser=(timeout 120 "$chromium_bin" --headless --no-sandbox --disable-gpu --no-first-run
         --disable-background-networking --disable-component-update --disable-sync
         --user-data-dir="$work/profile")
"${browser[@]}" --dump-dom "file://$work/report.html" >"$work/dom.html" 2>"$work/chromium.log" ||
  { echo "FAIL: chromium --dump-dom: $(tail -5 "$work/chromium.log")"; exit 1; }
"${browser[@]}" --hide-scrollbars --window-size=1400,1300 --screenshot="$work/shot.png" "file://$work/report.html" \
  >>"$work/chromium.log" 2>&1 || { echo "FAIL: chromium --screenshot: $(tail -5 "$work/chromium.log")"; exit 1; }
if [ -n "${SCREENSHOT_DIR:-}" ]; then cp "$work/shot.png" "$work/report.html" "$SCREENSHOT_DIR/"; fi

/usr/bin/python3 "$(dirname "$0")/check_html_report.py" "$work/dom.html" "$work/shot.png" "$work/table.txt"
