#!/usr/bin/env bash
# Depthwise 3x3 (112x112x96 and 56x56x144, NHWC, bias + ReLU6) with schedules found by LEKA's search
# (bench/suite/dwconv3x3.ekb has none), then timed by dwconv_bench against XNNPACK on the same threads:
# the search for profile edge-1core against XNNPACK single-threaded, for host against a pthreadpool
# of all cores. Target (issue 11): >= 1.0x XNNPACK.
# dwconv_bench times both libraries warm (batches of calls back to back, threads awake), so the
# search measures in the same regime: --timing warm (docs/metrics.md, "Timing regimes"). TIMING=cold
# searches as `ekb agent` does by default.
#   Usage: bench/dwconv/search.sh [BUDGET=40]
set -euo pipefail
cd "$(dirname "$0")/../.."
budget=${1:-40}
timing=${TIMING:-warm}
EKB=${EKB:-build/src/ekb}
BENCH=${BENCH:-build/bench/dwconv_bench}
out=bench/out/dwconv
rm -rf "$out"  # a fresh search each time: a store from before would resume its finished runs
mkdir -p "$out"
echo "== cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(grep -q -m1 -w avx512f /proc/cpuinfo && echo avx512 || (grep -q -m1 -w avx2 /proc/cpuinfo && echo avx2 || echo 'no avx2'))"
threads=$(nproc)
for device in edge-1core host; do
  echo "== search: ekb --suite bench/suite agent --tasks 'dwconv3x3_*' --device $device --budget $budget --timing $timing"
  "$EKB" --suite bench/suite agent --tasks 'dwconv3x3_*' --device "$device" --budget "$budget" --timing "$timing" --out "$out/$device" --db "$out/agent.db"
  t=1
  [ "$device" = host ] && t=$threads
  "$BENCH" --ekb "$out/$device/dwconv3x3_112x112x96.ekb" --ekb "$out/$device/dwconv3x3_56x56x144.ekb" --threads "$t"
done
