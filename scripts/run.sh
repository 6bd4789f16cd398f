#!/usr/bin/env bash
# The main job on embedded defaults (CPU only, no GPU, no LLM): installs what is missing, builds ekb,
# lists the suite, checks that every task is sound, and evaluates one task's float64 reference.
# Later issues replace the last steps with the end-to-end evaluation (`ekb run`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh ekb
EKB=build/src/ekb
$EKB list
$EKB check --suite
$EKB interp "${1:-mbv2_inverted_residual_28x28x32_t6}" --out build/reference
