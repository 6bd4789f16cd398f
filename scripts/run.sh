#!/usr/bin/env bash
# The main job on embedded defaults (CPU backend, SQLite results in ./ekb_results.db, no GPU, no LLM):
# installs what is missing, builds ekb, checks that every suite task is sound, and runs `ekb run`:
# one task of every category evaluated end to end (sandboxed workers, checks against the float64
# reference, interleaved timing against the baseline, the results store), then the metrics.
# Extra arguments go to `ekb run` (e.g. --device edge-cpu, --db FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh ekb
EKB=build/src/ekb
$EKB check --suite
$EKB run "$@"
