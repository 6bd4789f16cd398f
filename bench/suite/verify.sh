#!/usr/bin/env bash
# The suite verified on one device profile (CPU or GPU): every task's default schedule evaluated end
# to end by `ekb eval --defaults --quick` (compiled in a sandboxed worker, checked against the float64
# reference on the three input sets with poisoned outputs and guard zones, then timed for a few
# calls: a verification, not a measurement), printed as a table (verify_table.py) with the device,
# the counts, the wall time and every failure's message; exits 1 when any task failed. Record it
# with bench/record.sh, e.g.
#   bench/record.sh suite_verify_cpu "Suite on the CPU" bench/suite/verify.sh host
#   bench/record.sh suite_verify_pocl "Suite on PoCL" bench/suite/verify.sh pocl-cpu
#   EKB=build-gpu/src/ekb SHARD=1/3 REPORT=$OUT/cuda1.json bench/suite/verify.sh h200-cuda   (GPU machine)
# Arguments: DEVICE_PROFILE [TASK_GLOB]. Environment: EKB (default build/src/ekb), the ekb binary;
# VERIFY_DB (default: a temporary file), the results store, so that a run cut short resumes where it
# stopped when run again with the same one; SHARD=I/N runs the I-th of N interleaved parts of the
# task list (1-based), so that a long verification can be split over several calls or sessions;
# REPORT=FILE keeps ekb's JSON report, so that the shards' reports make one table afterwards:
#   bench/suite/verify_table.py WALL_SECONDS 1-3/3 cuda1.json cuda2.json cuda3.json
# One process at a time per device: evaluations side by side time each other (the harness then
# rightly reports `background work` on a GPU, and a CPU profile refuses to measure its peak rates).
set -euo pipefail
cd "$(dirname "$0")/../.."
device=${1:?usage: bench/suite/verify.sh DEVICE_PROFILE [TASK_GLOB]}
glob=${2:-*}
ekb=${EKB:-build/src/ekb}
shard=${SHARD:-1/1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report=${REPORT:-$tmp/report.json}
start=$(date +%s)
# Every task's own text as its submission (--defaults): its default schedule, against itself.
"$ekb" eval --defaults --device "$device" --tasks "$glob" --shard "$shard" --quick --json \
  --db "${VERIFY_DB:-$tmp/run.db}" > "$report" 2> "$tmp/stderr" || true
elapsed=$(( $(date +%s) - start ))
if [ ! -s "$report" ]; then
  echo "verify: ekb eval gave no report:" >&2
  tail -20 "$tmp/stderr" >&2
  exit 2
fi
python3 bench/suite/verify_table.py "$elapsed" "$shard" "$report"
