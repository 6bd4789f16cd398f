#!/usr/bin/env bash
# SGEMM 1024^3 f32 with a schedule found by LEKA's search (bench/suite/sgemm_1024.ekb has none: the
# search starts from the default schedule), then timed by sgemm_bench against OpenBLAS with the best
# core type this CPU runs (SkylakeX with AVX-512, else Haswell) on the same threads: the search for
# profile edge-1core against 1 OpenBLAS thread, for profile host against all cores.
# Target (issue 11): >= 0.9x OpenBLAS on whichever x86 CPU runs it.
#   Usage: bench/sgemm/search.sh [BUDGET=48]
set -euo pipefail
cd "$(dirname "$0")/../.."
budget=${1:-48}
EKB=${EKB:-build/src/ekb}
BENCH=${BENCH:-build/bench/sgemm_bench}
out=bench/out/sgemm
rm -rf "$out"  # a fresh search each time: a store from before would resume its finished runs
mkdir -p "$out"
if grep -q -m1 -w avx512f /proc/cpuinfo; then core=SkylakeX; else core=Haswell; fi
echo "== cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); OpenBLAS core type $core"
threads=$(nproc)
for device in edge-1core host; do
  echo "== search: ekb --suite bench/suite agent --tasks sgemm_1024 --device $device --budget $budget"
  "$EKB" --suite bench/suite agent --tasks sgemm_1024 --device "$device" --budget "$budget" --out "$out/$device" --db "$out/agent.db"
  sed -n '/^schedule/,$p' "$out/$device/sgemm_1024.ekb"
  t=1
  [ "$device" = host ] && t=$threads
  env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=$core "$BENCH" --ekb "$out/$device/sgemm_1024.ekb" --threads "$t"
done
