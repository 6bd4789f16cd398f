#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test (unit, ONNX cross-check,
# suite soundness, docs examples, CLI, and the front-end fuzzer for a bounded time) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
