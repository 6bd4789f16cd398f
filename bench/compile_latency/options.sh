#!/usr/bin/env bash
# What the C compile's options cost or save: compile_latency_bench over the suite's default schedules
# with ekb's pass list (the default), then with clang's own pipelines, one after the other in one run.
# What each does to the kernels' speed is pass_pipeline_bench's to measure (bench/results/pass_pipeline.md).
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
ekb's pass list (the default)|
clang's -O3 pipeline (ekb's before)|--clang-passes
clang's -O3 -fno-unroll-loops (only the schedule's unrolling)|--clang-passes --cflag -fno-unroll-loops
clang's -O2|--clang-passes --opt 2
clang's -O1|--clang-passes --opt 1
no LLVM passes (parse + IR + code generation only)|--passes verify
LIST
