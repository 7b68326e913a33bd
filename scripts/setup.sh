#!/usr/bin/env bash
# Installs the Debian 12 packages this project needs, and nothing else. Idempotent
# and non-interactive: packages already installed are left alone, and apt is not
# touched at all when everything is there.
#
#   scripts/setup.sh                 everything: the build, the tests and every script
#                                    (CI, scripts/test.sh)
#   scripts/setup.sh runtime         only what building and running the main job
#                                    (scripts/run.sh: reco_server and reco_load) needs
#   scripts/setup.sh [runtime] --print
#                                    lists the packages that set requires, one a line,
#                                    and installs nothing
set -euo pipefail
. "$(dirname "$0")/lib/script_flags.sh"
set_name=all print=
for arg in "$@"; do
  case "$arg" in
    -h | --help) script_usage "$0"; exit 0 ;;
    runtime | --runtime) set_name=runtime ;;
    --print) print=1 ;;
    *) echo "setup: unknown argument '$arg' (use: scripts/setup.sh [runtime] [--print])" >&2; exit 2 ;;
  esac
done
# The runtime set is what `cmake --preset default` needs to configure and what the
# two binaries link. GoogleTest and Google Benchmark are in it because the top
# CMakeLists.txt requires them to configure at all (their -dev packages are headers
# and static libraries, a few MB); the tools that only tests run are not.
runtime=(
  build-essential cmake pkg-config
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libbenchmark-dev libgtest-dev nlohmann-json3-dev
  libprotoc-dev  # schema/proto_schema.cc parses a user's .proto files at run time (protobuf's compiler library)
  prometheus-cpp-dev  # reco_server --metrics_listen: the Prometheus text format over HTTP (server/metrics_endpoint.h)
  libssl-dev  # rpc/pem_file.cc judges TLS certificate and key files with OpenSSL (gRPC's own TLS library)
  ccache  # every build's compiler launcher (cmake/CompilerCache.cmake): a rebuild of unchanged sources is a cache hit
)
tests=(
  # the allocators the project compares (given with LD_PRELOAD)
  libtcmalloc-minimal4 libjemalloc2 libmimalloc2.0
  # tests and cross-checks: valgrind counts allocations independently; h2load is a
  # third-party HTTP/2 client; Debian's python3 runs the test scripts
  valgrind nghttp2-client python3
  # tests/hostile: raw HTTP/2 frames (truncated gRPC frames, wrong content type)
  python3-h2
  nghttp2-proxy haproxy  # the edge (edge/run_edge.sh): h2_edge_test attacks the server through it
  # scripts/fuzz.sh: clang and its libFuzzer/ASan runtimes
  clang libclang-rt-14-dev
  chromium  # e2e_html_report_test renders reco_load's HTML report headless
  openssl  # server_tls_test, e2e_tls_test: a self-signed certificate made at test time
  python3-grpcio python3-protobuf  # scripts/soak.sh: its sampler reads ServerStats over gRPC
  python3-yaml  # k8s_manifests_test reads compose.yaml and the rendered k8s/ manifests
  shellcheck flake8 clang-format  # scripts/lint.sh, .ci/run's lint step
)
packages=("${runtime[@]}")
if [ "$set_name" = all ]; then
  packages+=("${tests[@]}")
  # k8s_manifests_test renders k8s/ with `kubectl kustomize`: Debian's kubernetes-client
  # (kubectl 1.20) unless the machine has a kubectl already (another package, e.g. the
  # Google Cloud SDK's, owns /usr/bin/kubectl then, and the two cannot both be installed).
  command -v kubectl >/dev/null || packages+=(kubernetes-client)
fi
if [ -n "$print" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}" >&2
# A mirror that fails for a moment must not fail a 45-minute CI run: apt retries each
# download, and the whole update + install is tried three times.
apt_get() { $sudo apt-get -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3 "$@"; }
for attempt in 1 2 3; do
  if apt_get update -q >/dev/null &&
    DEBIAN_FRONTEND=noninteractive apt_get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then
    exit 0
  fi
  [ "$attempt" = 3 ] || { echo "setup: apt-get failed (attempt $attempt of 3); again in 15 s" >&2; sleep 15; }
done
echo "setup: could not install ${missing[*]} (apt-get's error is above)" >&2
exit 1
