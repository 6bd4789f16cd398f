#!/usr/bin/env bash
# The baseline's soundness (issue 35): every suite workload's own L0 with an empty `schedule cpu`
# section — plain serial loops, not one directive, compiled exactly as any candidate is — evaluated
# by `ekb eval` against the task's baseline (its default schedule) on one device profile, in one
# timing regime; then the table per category (bench/soundness/table.py): how many naive programs are
# significantly faster than the baseline (their speedup's 95% interval above 1) and how many are
# 1.5x faster. A sound baseline keeps both near zero.
#   Usage: bench/soundness/naive_vs_baseline.sh [--device P] [--timing R] [--tasks GLOB] [--sample N] [--out DIR]
#   e.g.   bench/record.sh soundness_host "Naive loops vs the baseline, host" bench/soundness/naive_vs_baseline.sh --device host
# Resumable: the same command again continues the stored run (DIR/eval.db). Needs a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
EKB=${EKB:-build/src/ekb}
device=host timing=cold glob='*' sample=0 out=""
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=$2; shift 2 ;;
    --timing) timing=$2; shift 2 ;;
    --tasks) glob=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "naive_vs_baseline.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
out=${out:-bench/out/soundness/$device-$timing}
mkdir -p "$out/naive"
echo "== cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; $(grep -m1 -ow 'avx512f' /proc/cpuinfo >/dev/null && echo AVX-512 || (grep -m1 -ow avx2 /proc/cpuinfo >/dev/null && echo AVX2 || echo 'no AVX2'))"
echo "== device $device, timing $timing"
tasks=$("$EKB" list --json | python3 -c '
import json, sys, fnmatch, random
glob, sample = sys.argv[1], int(sys.argv[2])
names = sorted(t["name"] for t in json.load(sys.stdin) if fnmatch.fnmatch(t["name"], glob))
if sample and sample < len(names):
    random.seed(35)
    names = sorted(random.sample(names, sample))
print("\n".join(names))' "$glob" "$sample")
n=0
for t in $tasks; do
  f="$out/naive/$t.ekb"
  [ -f "$f" ] || { "$EKB" show "$t"; printf '\nschedule cpu\n'; } > "$f"
  n=$((n + 1))
done
echo "== $n workloads; naive programs in $out/naive"
"$EKB" eval "$out/naive" --device "$device" --timing "$timing" --db "$out/eval.db" --json > "$out/eval.json"
python3 bench/soundness/table.py "$out/eval.json" --ekb "$EKB"
