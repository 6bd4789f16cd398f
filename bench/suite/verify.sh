#!/usr/bin/env bash
# The suite verified on one device profile (CPU or GPU): every task's default schedule evaluated end
# to end by `ekb eval --defaults --quick` (compiled in a sandboxed worker, checked against the float64
# reference on the three input sets with poisoned outputs and guard zones, then timed for a few
# calls: a verification, not a measurement), printed as a table with the device, the counts, the
# wall time and every failure's message; exits 1 when any task failed. Record it with
# bench/record.sh, e.g.
#   bench/record.sh suite_verify_cpu "Suite on the CPU" bench/suite/verify.sh host
#   bench/record.sh suite_verify_pocl "Suite on PoCL" bench/suite/verify.sh pocl-cpu
#   EKB=build-gpu/src/ekb JOBS=4 bench/suite/verify.sh h200-cuda            (on the GPU machine)
# Arguments: DEVICE_PROFILE [TASK_GLOB]. Environment: EKB (default build/src/ekb), the ekb binary;
# VERIFY_DB (default: a temporary file), the results store, so that a run cut short resumes where it
# stopped when run again with the same one; SHARD=I/N runs the I-th of N interleaved parts of the
# task list (1-based), so that a long verification can be split over several calls or sessions;
# JOBS=J runs J parts of it (of the shard) side by side, each in its own ekb process and store, and
# prints one table: for GPU profiles on a machine of many cores (the processes share the device, so
# their times are not even rough measurements; CPU profiles refuse to measure their peak rates on a
# machine kept busy, so leave JOBS at 1 there).
set -euo pipefail
cd "$(dirname "$0")/../.."
device=${1:?usage: bench/suite/verify.sh DEVICE_PROFILE [TASK_GLOB]}
glob=${2:-*}
ekb=${EKB:-build/src/ekb}
shard=${SHARD:-1/1}
jobs=${JOBS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A shard I/N split J ways is the shards I + N*(j-1) of N*J (interleaved splits compose so).
i=${shard%/*} n=${shard#*/}
start=$(date +%s)
for j in $(seq 1 "$jobs"); do
  part="$(( i + n * (j - 1) ))/$(( n * jobs ))"
  db=${VERIFY_DB:-$tmp/run.db}
  [ "$jobs" -eq 1 ] || db="$db.$j"
  # Every task's own text as its submission (--defaults): its default schedule, against itself.
  "$ekb" eval --defaults --device "$device" --tasks "$glob" --shard "$part" --quick --json --db "$db" \
    > "$tmp/report.$j.json" 2> "$tmp/stderr.$j" &
done
wait || true
elapsed=$(( $(date +%s) - start ))
for j in $(seq 1 "$jobs"); do
  if [ ! -s "$tmp/report.$j.json" ]; then
    echo "verify: ekb eval (part $j of $jobs) gave no report:" >&2
    tail -20 "$tmp/stderr.$j" >&2
    exit 2
  fi
done
python3 - "$elapsed" "$shard" "$jobs" "$tmp"/report.*.json <<'PY'
import json, sys
elapsed, shard, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
reports = [json.load(open(f)) for f in sys.argv[4:]]
r = reports[0]
env = r.get("environment", {})
gpu = env.get("gpu", {})
if gpu:
    print(f"device profile `{r['device']}` (backend {r['backend']}): {gpu.get('name', '?')}, {gpu.get('platform', '')} {gpu.get('version', '')}".rstrip())
else:
    print(f"device profile `{r['device']}` (backend {r['backend']}): {env.get('cpu', '?')}, {env.get('cores', '?')} cores, {env.get('isa', '?')}")
print(f"compiler: {env.get('compiler', '?')}; ekb commit {env.get('ekb_commit', '?')}; shard {shard}" + (f", in {jobs} processes side by side" if jobs > 1 else ""))
attempts = sorted((a for rep in reports for a in rep["attempts"]), key=lambda a: a["task"])
tasks = sum(rep["tasks"] for rep in reports)
ok = [a for a in attempts if a["status"] == "ok"]
failures = {}
for a in attempts:
    if a["status"] != "ok":
        failures[a["status"]] = failures.get(a["status"], 0) + 1
share = 100.0 * len(ok) / len(attempts) if attempts else 0.0
print(f"tasks: {tasks}, correct: {len(ok)} ({share:.1f}%), failures: {failures}; wall time {elapsed} s")
if jobs > 1:
    print(f"(quick timing, {jobs} processes sharing the device: the times say that each kernel runs, not how fast)")
else:
    print("(quick timing: a few calls per side; the times say that each kernel runs and roughly how fast, not more)")
print()
print("| task | status | time, median (ms) |")
print("|---|---|---|")
for a in attempts:
    if a["status"] == "ok":
        print(f"| {a['task']} | ok | {a['candidate_ms']:.4f} |")
    else:
        msg = a["message"].replace("|", "/").replace("\n", " ")[:160]
        print(f"| {a['task']} | **{a['status']}** | {msg} |")
sys.exit(0 if attempts and len(ok) == len(attempts) else 1)
PY
