#!/usr/bin/env bash
# The suite verified on one device profile (CPU or GPU): every task's default schedule evaluated end
# to end by `ekb eval --quick` (compiled in a sandboxed worker, checked against the float64
# reference on the three input sets with poisoned outputs and guard zones, then timed for a few
# calls: a verification, not a measurement), printed as a table with the device, the counts, the
# wall time and every failure's message; exits 1 when any task failed. Record it with
# bench/record.sh, e.g.
#   bench/record.sh suite_verify_cpu "Suite on the CPU" bench/suite/verify.sh host
#   bench/record.sh suite_verify_pocl "Suite on PoCL" bench/suite/verify.sh pocl-cpu
#   EKB=build-gpu/src/ekb bench/suite/verify.sh h200-cuda            (on the GPU machine)
# Arguments: DEVICE_PROFILE [TASK_GLOB]. Environment: EKB (default build/src/ekb), the ekb binary;
# VERIFY_DB (default: a temporary file), the results store, so that a run cut short resumes where it
# stopped when run again with the same one; SHARD=I/N runs the I-th of N interleaved parts of the
# task list (1-based), so that a long verification can be split over several calls or sessions.
set -euo pipefail
cd "$(dirname "$0")/../.."
device=${1:?usage: bench/suite/verify.sh DEVICE_PROFILE [TASK_GLOB]}
glob=${2:-*}
ekb=${EKB:-build/src/ekb}
shard=${SHARD:-1/1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every task's own text as its submission (--defaults): its default schedule, against itself.
start=$(date +%s)
"$ekb" eval --defaults --device "$device" --tasks "$glob" --shard "$shard" --quick --json \
  --db "${VERIFY_DB:-$tmp/run.db}" > "$tmp/report.json" 2> "$tmp/stderr" || true
elapsed=$(( $(date +%s) - start ))
if [ ! -s "$tmp/report.json" ]; then
  echo "verify: ekb eval gave no report:" >&2
  tail -20 "$tmp/stderr" >&2
  exit 2
fi
python3 - "$tmp/report.json" "$elapsed" "$shard" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
env = r.get("environment", {})
gpu = env.get("gpu", {})
if gpu:
    print(f"device profile `{r['device']}` (backend {r['backend']}): {gpu.get('name', '?')}, {gpu.get('platform', '')} {gpu.get('version', '')}".rstrip())
else:
    print(f"device profile `{r['device']}` (backend {r['backend']}): {env.get('cpu', '?')}, {env.get('cores', '?')} cores, {env.get('isa', '?')}")
print(f"compiler: {env.get('compiler', '?')}; ekb commit {env.get('ekb_commit', '?')}; shard {sys.argv[3]}")
ok = [a for a in r["attempts"] if a["status"] == "ok"]
print(f"tasks: {r['tasks']}, correct: {len(ok)} ({100.0 * r['correct_at_1']:.1f}%), failures: {r['failures']}; wall time {sys.argv[2]} s")
print("(quick timing: a few calls per side; the times say that each kernel runs and roughly how fast, not more)")
print()
print("| task | status | time, median (ms) |")
print("|---|---|---|")
for a in r["attempts"]:
    if a["status"] == "ok":
        print(f"| {a['task']} | ok | {a['candidate_ms']:.4f} |")
    else:
        msg = a["message"].replace("|", "/").replace("\n", " ")[:160]
        print(f"| {a['task']} | **{a['status']}** | {msg} |")
sys.exit(0 if len(ok) == len(r["attempts"]) else 1)
PY
