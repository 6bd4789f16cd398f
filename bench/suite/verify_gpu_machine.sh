#!/usr/bin/env bash
# The suite's verification on the GPU machine (reached through `device`), fitted to its leases: one
# call builds ekb (scripts/gpu-machine.sh build), fills the float64 reference cache on every CPU core
# (the three checked input sets, seeds 1 to 3, the same on every machine, of every task some named
# profile has not stored yet), then runs
# bench/suite/verify.sh for each GPU profile in turn, one process on the GPU at a time, until a deadline.
# A profile cut short by the deadline resumes in the next call. The work lives in /tmp/ekb-verify
# while the machine stays warm; each call copies it to OUT_DIR (which comes back), and a fresh
# machine starts from FROM_DIR (what came back last time, carried), so that nothing verified is lost
# when the machine is given back between calls.
#   bench/suite/verify_gpu_machine.sh FROM_DIR OUT_DIR SECONDS PROFILE...
#   e.g. bench/suite/verify_gpu_machine.sh .device-state "$OUT" 540 h200-cuda h200-opencl
# Per profile: PROFILE.db (the results store), PROFILE.seconds (the wall seconds spent in verify.sh,
# summed over calls), PROFILE.table (verify_table.py's table, once every task is done) and
# PROFILE.json (ekb's report, likewise). Exit status: 0 when every profile finished, 3 when the
# deadline came first, 2 when the build failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: bench/suite/verify_gpu_machine.sh FROM_DIR OUT_DIR SECONDS PROFILE..."
from=${1:?$usage}
out=${2:?$usage}
seconds=${3:?$usage}
shift 3
[ $# -gt 0 ] || { echo "verify_gpu_machine: name at least one GPU profile (h200-cuda, h200-opencl)" >&2; exit 2; }
deadline=$(( $(date +%s) + seconds ))
mkdir -p "$out"
scripts/gpu-machine.sh build > /tmp/ekb-gpu-build.log 2>&1 || { tail -30 /tmp/ekb-gpu-build.log >&2; exit 2; }
export LD_LIBRARY_PATH=${EKB_DEPS_PREFIX:-/tmp/ekb-deps}/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export EKB_CACHE_DIR=${EKB_CACHE_DIR:-/tmp/ekb-cache}
ekb=${EKB_BUILD_DIR:-build-gpu}/src/ekb
work=/tmp/ekb-verify
mkdir -p "$work"
for profile in "$@"; do  # a fresh machine starts from what came back last
  for f in "$profile".db "$profile".seconds "$profile".table "$profile".json; do
    [ -e "$work/$f" ] || [ ! -e "$from/$f" ] || cp "$from/$f" "$work/$f"
  done
done
stored_tasks() {  # the tasks stored in every one of these results stores (none if one is missing)
  python3 - "$@" <<'PY'
import os, sqlite3, sys
sets = [{r[0] for r in sqlite3.connect(f).execute("SELECT DISTINCT task FROM attempts")} if os.path.exists(f) else set() for f in sys.argv[1:]]
print("\n".join(sorted(set.intersection(*sets))))
PY
}
save_store() {  # a consistent copy of the store (its write-ahead log folded in), even after a kill mid-write
  python3 -c 'import sqlite3, sys; s = sqlite3.connect(sys.argv[1]); d = sqlite3.connect(sys.argv[2]); s.backup(d); d.close()' "$1" "$2"
}
hand_back() {  # what this call has for the next, and the tables
  local f
  for f in "$work"/*; do
    case "$f" in *.db) save_store "$f" "$out/$(basename "$f")" ;; *.seconds|*.table|*.json) cp "$f" "$out/" ;; esac
  done
}
trap hand_back EXIT
# The references: each task and seed once, in parallel (the interpreter is single-threaded per task).
start=$(date +%s)
stores=()
for profile in "$@"; do stores+=("$work/$profile.db"); done
stored_tasks "${stores[@]}" > "$work/stored.txt"
grep -v '^#' suite/MANIFEST | cut -f1 | { grep -vxFf "$work/stored.txt" || true; } | while read -r task; do for s in 1 2 3; do echo "$task $s"; done; done |
  xargs -P "$(nproc)" -n 2 sh -c '"$0" interp "$1" --seed "$2" > /dev/null || echo "verify_gpu_machine: reference of $1 (seed $2) failed" >&2' "$ekb"
echo "verify_gpu_machine: references ready in $(( $(date +%s) - start )) s ($(du -sh "$EKB_CACHE_DIR/reference" | cut -f1))"
for profile in "$@"; do
  if [ -s "$work/$profile.json" ]; then echo "verify_gpu_machine: $profile was finished in an earlier call"; continue; fi
  [ -e "$work/$profile.seconds" ] || echo 0 > "$work/$profile.seconds"
  left=$(( deadline - $(date +%s) ))
  if [ "$left" -le 30 ]; then echo "verify_gpu_machine: $profile not started: the deadline is near"; exit 3; fi
  began=$(date +%s)
  rc=0
  timeout "$left" env EKB="$ekb" VERIFY_DB="$work/$profile.db" REPORT="$work/$profile.json.part" bench/suite/verify.sh "$profile" \
    > "$work/$profile.table.part" 2>&1 || rc=$?
  echo $(( $(cat "$work/$profile.seconds") + $(date +%s) - began )) > "$work/$profile.seconds"
  if [ "$rc" -eq 124 ]; then
    done_tasks=$(stored_tasks "$work/$profile.db" | grep -c . || true)
    echo "verify_gpu_machine: $profile cut short by the deadline after $(cat "$work/$profile.seconds") s, $done_tasks tasks stored (it resumes in the next call)"
    exit 3
  fi
  mv "$work/$profile.table.part" "$work/$profile.table"
  [ -s "$work/$profile.json.part" ] && mv "$work/$profile.json.part" "$work/$profile.json"
  head -4 "$work/$profile.table"
done
