#!/usr/bin/env bash
# SGEMM f32 with a schedule found by LEKA's search for a GPU profile, timed against cuBLAS
# (torch.matmul, TF32 off) by h200_bench.py on the same device in one run, each repetition after an
# L2 flush, and checked there against PyTorch's float64 product.
# The search runs on bench/suite/sgemm_2048.ekb (no schedule: it starts from the default one) through
# the full harness (checks against ekb's float64 reference on three input sets, interleaved timing);
# 4096^3's reference would take the interpreter about ten minutes per input set. The schedule it
# keeps is applied unchanged to sgemm_4096 (the same kernel; its tile sizes divide both) and timed.
# Target (issue 11): >= 0.8x cuBLAS at 4096^3 on the H200. On the GPU machine, after
# scripts/gpu-machine.sh build:
#   bench/gpu/search.sh [BUDGET=24] [DEVICE=h200-cuda] [TIME_LIMIT_S=300] [SEARCH_TASK=sgemm_2048]
# (SEARCH_TASK sgemm_1024: a reference of seconds, not minutes, for a short device session.)
set -euo pipefail
cd "$(dirname "$0")/../.."
budget=${1:-24}
device=${2:-h200-cuda}
limit=${3:-300}
task=${4:-sgemm_2048}
EKB=${EKB:-build-gpu/src/ekb}
PY=${PY:-/opt/torch/.venv/bin/python}
out=${OUT_DIR:-bench/out/gpu-sgemm}
rm -rf "$out"  # a fresh search each time: its store then holds run 1
mkdir -p "$out"
echo "== search: ekb --suite bench/suite agent --tasks $task --device $device --budget $budget --time-limit $limit"
start=$(date +%s)
"$EKB" --suite bench/suite agent --tasks "$task" --device "$device" --budget "$budget" --time-limit "$limit" \
  --out "$out/programs" --db "$out/agent.db"
echo "== search took $(( $(date +%s) - start )) s"
"$EKB" trajectory 1 "$task" --db "$out/agent.db"
# The kernel of sgemm_4096 with the sections the search kept.
{ sed -n '/^kernel/,/^ *C\[m, n\]/p' bench/suite/sgemm_4096.ekb; echo; sed -n '/^\(schedule\|memory\) /,$p' "$out/programs/$task.ekb"; } > "$out/sgemm_4096.ekb"
echo "== the program timed ($out/sgemm_4096.ekb):"
cat "$out/sgemm_4096.ekb"
"$EKB" check "$out/sgemm_4096.ekb"
echo "== against cuBLAS"
"$PY" bench/gpu/h200_bench.py --cases sgemm --sgemm-ekb "$out/sgemm_4096.ekb"
