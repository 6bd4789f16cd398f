#!/usr/bin/env bash
# Configures (once) and builds ekb and its tests into build/ with clang 19 and Ninja; incremental
# (and ccache-backed) after the first run. Extra arguments go to the build, e.g. `scripts/build.sh ekb`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  CXX=clang++-19 cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build build -- "$@"
