#!/usr/bin/env bash
# What the C compile's options cost or save: compile_latency_bench over the suite's default schedules
# with ekb's flags (-O3), then with lighter pipelines, one after the other in one run. A guide to what
# reaching the 25 ms median would take; ekb compiles at -O3, and a lighter pipeline would change the
# code every timing measures (not done: the kernels' speed is the point).
#   Usage: bench/compile_latency/options.sh [REPS=3]
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-3}
BENCH=${BENCH:-build/bench/compile_latency_bench}
while IFS='|' read -r what args; do
  echo "== $what: compile_latency_bench --reps $reps --top 0 $args"
  # shellcheck disable=SC2086
  "$BENCH" --reps "$reps" --top 0 $args | grep -E '^  (lower\+print|clang\+JIT|total) '
done <<'LIST'
ekb's flags (-O3)|
-O3 -fno-unroll-loops (only the schedule's unrolling)|--cflag -fno-unroll-loops
-O2|--opt 2
-O2 -fno-unroll-loops -fno-vectorize|--opt 2 --cflag -fno-unroll-loops --cflag -fno-vectorize
-O1|--opt 1
-O3, clang's LLVM passes off (parse + IR + JIT code generation only)|--cflag -Xclang --cflag -disable-llvm-passes
LIST
