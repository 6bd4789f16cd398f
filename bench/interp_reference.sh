#!/usr/bin/env bash
# Benchmark: time of the float64 reference interpreter (no cache) on a 256x256x256 f32 matmul, and
# on every suite task. Times are those `ekb interp` reports for the evaluation itself (input
# generation included, process start excluded). Prints median, min and max of REPS runs.
# Target: the matmul under 2 s.   Usage: bench/interp_reference.sh [REPS]   (after scripts/build.sh ekb)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-7}
ekb=build/src/ekb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/mm.ekb" <<'EKB'
kernel matmul_256
  dim M = 256, N = 256, K = 256
  in A : f32[M, K]
  in B : f32[K, N]
  out C : f32[M, N]
  C[m, n] = sum(k) A[m, k] * B[k, n]
EKB
ms() { "$ekb" interp "$1" --no-cache | sed -n 's/.*(\([0-9.]*\) ms).*/\1/p'; }
stats() { sort -g | awk '{v[NR]=$1} END {printf "median %.1f ms  min %.1f  max %.1f  (n=%d)\n", v[int((NR+1)/2)], v[1], v[NR], NR}'; }
echo "matmul 256^3 f32, reference without cache:"
for _ in $(seq "$reps"); do ms "$tmp/mm.ekb"; done | stats
tasks=$("$ekb" list | awk 'NR > 1 && NF >= 7 {print $1}')
echo "suite: $(echo "$tasks" | wc -w) tasks, one reference each without cache, total per pass:"
for _ in 1 2 3; do
  for t in $tasks; do ms "$t"; done | awk '{s += $1} END {print s}'
done | stats
echo "slowest tasks (ms):"
for t in $tasks; do echo "$(ms "$t") $t"; done | sort -gr | head -5
