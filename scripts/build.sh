#!/usr/bin/env bash
# Configures (CMakePresets.json: "default", RelWithDebInfo) and builds everything into
# build/ (or $BUILD_DIR). Extra arguments go to cmake's configure step, e.g.
# scripts/build.sh -DCMAKE_BUILD_TYPE=Debug. TARGETS="reco_server reco_load" builds
# only those (scripts/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/script_flags.sh
case ${1:-} in -h|--help) script_usage "$0"; exit 0 ;; esac  # the rest are cmake's
build=${BUILD_DIR:-build}
cmake --preset default -B "$build" "$@" >/dev/null
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j"$(nproc)" "${targets[@]}"
