#!/usr/bin/env bash
# The same-budget comparison (docs/agent.md) run end to end against ekb's scripted OpenAI-compatible
# server (tests/tools/scripted_llm_server.cpp), as the demonstration that every mode works: direct
# generation, the free-form loop, LEKA-LLM and LEKA-search on the agent subset, then `ekb compare`.
# The replies are canned, not a model's: for the ir modes the server sends back the first program
# the prompt showed (the task's own L0, which is correct and runs the default schedule); for the raw
# mode, the C that ekb generates for the task's default schedule (made here by `ekb compile --emit c`).
# So the figures show the plumbing — requests, tokens, cost, classification, scoring — not a model.
#   Usage: bench/llm/scripted_comparison.sh [BUDGET=4] [SUBSET=agent]
#   Writes bench/out/llm-compare/ (the server's script and log, the runs' directories, compare.db).
set -euo pipefail
cd "$(dirname "$0")/../.."
budget=${1:-4}
subset=${2:-agent}
EKB=${EKB:-build/src/ekb}
SERVER=${SERVER:-build/tests/ekb-scripted-llm}
out=bench/out/llm-compare
rm -rf "$out"
mkdir -p "$out/raw-c"
db=$out/compare.db
echo "== cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(grep -q -m1 -w avx512f /proc/cpuinfo && echo avx512 || (grep -q -m1 -w avx2 /proc/cpuinfo && echo avx2 || echo 'no avx2'))"
# The raw replies: each task's default-schedule C, without the entry wrapper the harness adds.
tasks=$("$EKB" list --subset "$subset" --json | python3 -c 'import json,sys; print("\n".join(t["name"] for t in json.load(sys.stdin)))')
for t in $tasks; do
  "$EKB" compile "$t" --emit c | sed '/^void ekb_entry(/,$d' > "$out/raw-c/$t.c"
done
python3 - "$out" $tasks <<'PY'
import json, sys
out, tasks = sys.argv[1], sys.argv[2:]
replies = []
for t in tasks:
    code = open(f"{out}/raw-c/{t}.c").read()
    replies.append({"contains": ["## The task: " + t + "\n", "## The ABI"], "repeat": 1000,
                    "content": "The kernel:\n```c\n" + code + "```\n"})
json.dump({"replies": replies, "default": {"echo_fenced": "ekb"}}, open(f"{out}/script.json", "w"))
PY
"$SERVER" --script "$out/script.json" --log "$out/requests.jsonl" > "$out/server.txt" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$out/server.txt" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$out/server.txt")
llm=(--model scripted --endpoint "http://127.0.0.1:$port/v1" --db "$db")
export EKB_LLM_API_KEY=sk-scripted-demo-key   # sent to the scripted server; stored nowhere
step() { echo "== $*"; start=$(date +%s); "$@"; echo "== took $(( $(date +%s) - start )) s"; }
step "$EKB" generate --mode ir --samples 1 --subset "$subset" --out "$out/direct" "${llm[@]}"
step "$EKB" eval "$out/direct" --db "$db"
step "$EKB" agent --policy llm --mode raw --subset "$subset" --budget "$budget" --out "$out/freeform" "${llm[@]}"
step "$EKB" agent --policy llm --mode ir --subset "$subset" --budget "$budget" --out "$out/leka-llm" "${llm[@]}"
# (A server that died mid-run leaves every later request unanswered: the figures would then measure
# that, not the modes. Fail instead.)
if ! kill -0 "$server" 2>/dev/null; then
  echo "scripted_comparison.sh: the scripted server ($SERVER) died during the run (see $out/server.txt); the figures are not valid" >&2
  exit 1
fi
step "$EKB" agent --policy search --subset "$subset" --budget "$budget" --out "$out/leka-search" --db "$db"
echo "== ekb compare 1 3 4 5 (direct, free-form, LEKA-LLM, LEKA-search)"
"$EKB" compare 1 3 4 5 --subset "$subset" --db "$db"
echo "== the key in the store: $(grep -c sk-scripted-demo-key "$db" || true) occurrences"
