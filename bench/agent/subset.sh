#!/usr/bin/env bash
# LEKA's search on the agent subset (suite/subsets/agent.txt) for one device profile, then every
# program it found re-scored independently by `ekb eval` (full protocol, intervals): the geomean
# speedup over the default schedule and Fast@1.0, strict and significant, are the eval run's.
# Targets (issue 11, profile host on a CPU): geomean >= 2x, significant Fast@1.0 >= 80%.
#   Usage: bench/agent/subset.sh [DEVICE=host] [BUDGET=32] [TIME_LIMIT_S=0 (none)]
#   Writes bench/out/agent-DEVICE/ (programs, agent.db); record with
#   bench/record.sh agent_subset "..." bench/agent/subset.sh host 32
set -euo pipefail
cd "$(dirname "$0")/../.."
device=${1:-host}
budget=${2:-32}
limit=${3:-0}
EKB=${EKB:-build/src/ekb}
out=bench/out/agent-$device
rm -rf "$out"  # a fresh search each time: a store from before would resume its finished runs
mkdir -p "$out"
db=$out/agent.db
echo "== cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(grep -q -m1 -w avx512f /proc/cpuinfo && echo avx512 || (grep -q -m1 -w avx2 /proc/cpuinfo && echo avx2 || echo 'no avx2'))"
echo "== search: ekb agent --subset agent --device $device --budget $budget --time-limit $limit"
start=$(date +%s)
"$EKB" agent --subset agent --device "$device" --budget "$budget" --time-limit "$limit" --out "$out/programs" --db "$db"
echo "== search took $(( $(date +%s) - start )) s"
echo "== re-score: ekb eval $out/programs --device $device"
"$EKB" eval "$out/programs" --device "$device" --db "$db"
