#!/usr/bin/env bash
# The suite verified on one GPU device profile: every task's default schedule for the profile's
# backend evaluated end to end (checked on the reference inputs, then timed on the device against
# itself), printed as a table: status and device time per task, the counts, and any failure's
# message. Record it with bench/record.sh, e.g.
#   bench/record.sh gpu_suite_pocl "Suite on PoCL" bench/gpu/verify_suite.sh pocl-cpu
# EKB (default build/src/ekb) is the ekb binary to use; VERIFY_DB (default: a temporary file) the
# results store, so that a run cut short resumes where it stopped when run again with the same one.
set -euo pipefail
cd "$(dirname "$0")/../.."
device=${1:?usage: bench/gpu/verify_suite.sh DEVICE_PROFILE [TASK_GLOB]}
glob=${2:-*}
ekb=${EKB:-build/src/ekb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each task's own text as its submission: a candidate without schedule sections is the default schedule.
# (`ekb run --tasks` would run LEKA's search first.)
mkdir -p "$tmp/default"
"$ekb" list --json | python3 -c 'import json, sys; print("\n".join(t["name"] for t in json.load(sys.stdin)))' |
  while read -r task; do "$ekb" show "$task" > "$tmp/default/$task.ekb"; done
"$ekb" eval "$tmp/default" --device "$device" --tasks "$glob" --json --db "${VERIFY_DB:-$tmp/run.db}" > "$tmp/report.json" || true
python3 - "$tmp/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
env = r.get("environment", {})
gpu = env.get("gpu", {})
print(f"device profile `{r['device']}` (backend {r['backend']}): {gpu.get('name', '?')}, {gpu.get('platform', '')} {gpu.get('version', '')}".rstrip())
print(f"compiler: {env.get('compiler', '?')}; ekb commit {env.get('ekb_commit', '?')}")
ok = [a for a in r["attempts"] if a["status"] == "ok"]
print(f"tasks: {r['tasks']}, correct: {len(ok)} ({100.0 * r['correct_at_1']:.1f}%), failures: {r['failures']}")
print()
print("| task | status | device time, median (ms) | self-speedup |")
print("|---|---|---|---|")
for a in r["attempts"]:
    if a["status"] == "ok":
        print(f"| {a['task']} | ok | {a['candidate_ms']:.4f} | {a['speedup']:.3f} |")
    else:
        msg = a["message"].replace("|", "/").replace("\n", " ")[:160]
        print(f"| {a['task']} | **{a['status']}** | - | {msg} |")
PY
