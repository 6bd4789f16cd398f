#!/usr/bin/env bash
# The timing's spread between pairs of workers (issue 35; EvalOptions::process_spread): each sampled
# workload's own default schedule, written out as a candidate, evaluated by `ekb eval` against the
# baseline — the same program, the same C, compiled and timed in two worker processes — so that
# every speedup away from 1 is what the pair of workers did (where their buffers, stack and heap
# lie), not the program. Prints the standard deviation of the log speedups (the spread the harness
# joins to every reported interval) and how many identical programs the reported interval still
# calls significantly faster or slower (at 95%, about 5% in all when the interval is honest).
#   Usage: bench/soundness/aa_spread.sh [--device P] [--timing R] [--sample N] [--out DIR]
#   e.g.   bench/record.sh aa_spread "Identical programs in two workers" bench/soundness/aa_spread.sh --sample 60
# Resumable (DIR/eval.db). Needs a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
EKB=${EKB:-build/src/ekb}
device=host timing=cold sample=60 out=""
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=$2; shift 2 ;;
    --timing) timing=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "aa_spread.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
out=${out:-bench/out/soundness/aa-$device-$timing}
mkdir -p "$out/same"
echo "== cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; $(grep -m1 -ow 'avx512f' /proc/cpuinfo >/dev/null && echo AVX-512 || (grep -m1 -ow avx2 /proc/cpuinfo >/dev/null && echo AVX2 || echo 'no AVX2'))"
echo "== device $device, timing $timing"
tasks=$("$EKB" list --json | python3 -c '
import json, sys, random
names = sorted(t["name"] for t in json.load(sys.stdin))
random.seed(36)
print("\n".join(sorted(random.sample(names, min(int(sys.argv[1]), len(names))))))' "$sample")
n=0
for t in $tasks; do
  f="$out/same/$t.ekb"
  [ -f "$f" ] || { "$EKB" show "$t"; echo; "$EKB" compile "$t" --schedule default --device "$device" --emit schedule; } > "$f"
  n=$((n + 1))
done
echo "== $n workloads, each its default schedule against itself; programs in $out/same"
"$EKB" eval "$out/same" --device "$device" --timing "$timing" --db "$out/eval.db" --json > "$out/eval.json"
python3 - "$out/eval.json" <<'PY'
import json, math, statistics, sys
d = json.load(open(sys.argv[1]))
ok = [x for x in d["attempts"] if x["status"] == "ok"]
logs = [math.log(x["speedup"]) for x in ok]
faster = sum(x["speedup_interval"][0] > 1 for x in ok)
slower = sum(x["speedup_interval"][1] < 1 for x in ok)
print(f"{len(ok)} of {len(d['attempts'])} identical programs timed (not ok: {len(d['attempts']) - len(ok)})")
print(f"standard deviation of the log speedup: {statistics.pstdev(logs):.4f} (root mean square {math.sqrt(sum(v * v for v in logs) / len(logs)):.4f});"
      f" speedups from {min(x['speedup'] for x in ok):.3f} to {max(x['speedup'] for x in ok):.3f}, median {statistics.median(x['speedup'] for x in ok):.3f}")
print(f"with the reported interval: significantly faster {faster}, significantly slower {slower}: {faster + slower} of {len(ok)} ({100 * (faster + slower) / len(ok):.1f}%)")
print("\n| workload | speedup | 95% interval | baseline ms |\n|---|---|---|---|")
for x in sorted(ok, key=lambda x: x["speedup"]):
    print(f"| {x['task']} | {x['speedup']:.3f} | [{x['speedup_interval'][0]:.3f}, {x['speedup_interval'][1]:.3f}] | {x['baseline_ms']:.4f} |")
PY
