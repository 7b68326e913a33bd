#!/usr/bin/env bash
# Configures and builds everything into build/ (or $BUILD_DIR). Extra arguments go
# to cmake's configure step, e.g. scripts/build.sh -DCMAKE_BUILD_TYPE=Debug.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
