#!/usr/bin/env bash
# Timing repeatability: every suite task's default schedule timed against itself (each task's .ekb as
# `ekb show` prints it, no schedule of its own: the baseline's code on both sides), through `ekb eval`'s
# full protocol, RUNS times into fresh stores. Prints per run Correct@1 and the spread of the
# self-speedups, then, per task, how far the same measurement moved between runs.
#   Usage: bench/repeatability.sh [RUNS] [DEVICE]    (needs jq; record with bench/record.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2} device=${2:-host}
ekb=${EKB:-build/src/ekb}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
quantiles='sort | {n: length, min: .[0], p10: .[(length * 0.1 | floor)], median: .[(length / 2 | floor)],
  p90: .[(length * 0.9 | floor)], max: .[-1]} | map_values(if type == "number" then (. * 1000 | round / 1000) else . end)'
mkdir -p "$dir/same"
for t in $("$ekb" list --json | jq -r '.[].name'); do "$ekb" show "$t" > "$dir/same/$t.ekb"; done
for r in $(seq 1 "$runs"); do
  "$ekb" eval "$dir/same" --device "$device" --db "$dir/run$r.db" --json > "$dir/run$r.json"
  jq -c --arg r "$r" '{run: ($r | tonumber), tasks, correct_at_1, fast_1_0: .fast["1.0"],
    fast_1_0_significant: .fast_significant["1.0"], geomean_speedup, noisy,
    failures}' "$dir/run$r.json"
  echo "  self-speedup spread: $(jq -c "[.attempts[] | select(.status == \"ok\") | .speedup] | $quantiles" "$dir/run$r.json")"
  echo "  outside 0.8-1.25x: $(jq -c '[.attempts[] | select(.status == "ok" and (.speedup < 0.8 or .speedup > 1.25))
    | {task, speedup: (.speedup * 1000 | round / 1000), candidate_ms, baseline_ms}]' "$dir/run$r.json")"
done
if [ "$runs" -ge 2 ]; then
  # The same candidate measured twice: the ratio of its speedups in run 2 and run 1, per task.
  echo "run 2 / run 1, per task: $(jq -s -c "[.[0].attempts, .[1].attempts] | transpose
    | map(select(.[0].status == \"ok\" and .[1].status == \"ok\") | .[1].speedup / .[0].speedup) | $quantiles" \
    "$dir/run1.json" "$dir/run2.json")"
fi
