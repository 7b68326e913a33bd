#!/usr/bin/env bash
# Renders a reco_load report in Debian's headless chromium and saves a PNG of its first
# screens at 1,400 px wide (the width the report is laid out for):
#   scripts/screenshot_report.sh [REPORT] [OUT_PNG]
# REPORT is an HTML report (.html, or .html.gz as a kept run under docs/results/ keeps
# it), or a JSON report (.json or .json.gz) rendered first with `reco_load merge REPORT
# --html` into a temp file.
# Merge reads back the client side only: from a JSON report the server charts say
# "no target served them". The reco_load used is $RECO_LOAD, default build/client/reco_load.
# Defaults: results/report.html (written by scripts/run.sh) -> docs/report-screenshot.png.
# SCREEN_HEIGHT (default 1800: the verdict, the six charts and the warnings line) sets
# how much of the page the PNG shows. The same browser flags as tests/e2e/html_report_test.sh.
set -euo pipefail
root=$(realpath "$(dirname "$0")/..")
. "$root/scripts/lib/script_flags.sh"
parse_positionals "$0" "$@"
report=$(realpath -m "${1:-$root/results/report.html}")  # paths given are the caller's
out=$(realpath -m "${2:-$root/docs/report-screenshot.png}")
cd "$root"
height=${SCREEN_HEIGHT:-1800}
reco_load=${RECO_LOAD:-build/client/reco_load}
[ -f "$report" ] || { echo "screenshot_report: $report not found (run scripts/run.sh first)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "screenshot_report: chromium is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case "$report" in
  *.html.gz) zcat "$report" >"$work/report.html"; json= ; report=$work/report.html ;;
  *.json.gz) zcat "$report" >"$work/report.json"; json=$work/report.json ;;
  *.json) json=$report ;;
  *) json= ;;
esac
if [ -n "$json" ]; then
  [ -x "$reco_load" ] || { echo "screenshot_report: $reco_load not found (build it, or set RECO_LOAD)" >&2; exit 1; }
  "$reco_load" merge "$json" --html "$work/report.html" >"$work/merge.log" 2>&1 ||
    { echo "screenshot_report: reco_load merge $report failed: $(tail -3 "$work/merge.log")" >&2; exit 1; }
  report=$work/report.html
fi
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" --hide-scrollbars \
  --window-size="1400,$height" --screenshot="$out" "file://$report" >"$work/chromium.log" 2>&1 ||
  { echo "screenshot_report: chromium failed: $(tail -3 "$work/chromium.log")" >&2; exit 1; }
echo "screenshot_report: wrote $out"
