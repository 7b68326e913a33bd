#!/usr/bin/env bash
# Renders a reco_load HTML report in Debian's headless chromium and saves a PNG:
#   scripts/screenshot_report.sh [REPORT_HTML] [OUT_PNG]
# Defaults: results/report.html (written by scripts/run.sh) -> docs/report-screenshot.png.
# The same browser flags as tests/e2e/html_report_test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
report=$(realpath "${1:-results/report.html}")
out=${2:-docs/report-screenshot.png}
[ -f "$report" ] || { echo "screenshot_report: $report not found (run scripts/run.sh first)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "screenshot_report: chromium is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
  --window-size=1050,1500 --screenshot="$(realpath -m "$out")" "file://$report" >/dev/null 2>&1
echo "screenshot_report: wrote $out"
