#!/usr/bin/env bash
# The main job: installs what is missing, builds, and prints the allocation ledger
# for both text profiles.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
build=${BUILD_DIR:-build}
"$build"/tools/alloc_ledger --profile realistic "$@"
echo
"$build"/tools/alloc_ledger --profile compact "$@"
