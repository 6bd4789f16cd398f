#!/usr/bin/env python3
"""The soundness table from `ekb eval --json` of naive programs against the baseline
(bench/soundness/naive_vs_baseline.sh): per category the workloads, how many naive programs are
significantly faster than the baseline (speedup interval above 1), how many at least 1.5x faster,
the geometric mean of naive/baseline speedups, and the workloads where the naive program wins most.

  python3 bench/soundness/table.py EVAL.json [--ekb build/src/ekb] [--worst N]
"""
import argparse, collections, json, math, subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("eval_json")
    ap.add_argument("--ekb", default="build/src/ekb")
    ap.add_argument("--worst", type=int, default=15)
    a = ap.parse_args()
    d = json.load(open(a.eval_json))
    cat = {t["name"]: t["category"] for t in json.loads(subprocess.run([a.ekb, "list", "--json"], capture_output=True, text=True, check=True).stdout)}
    rows = collections.defaultdict(lambda: {"n": 0, "sig": 0, "x15": 0, "sp": [], "bad": 0})
    for x in d["attempts"]:
        r = rows[cat.get(x["task"], "?")]
        r["n"] += 1
        if x["status"] != "ok":
            r["bad"] += 1
            continue
        lo = x["speedup_interval"][0]
        r["sp"].append(x["speedup"])
        r["sig"] += lo > 1
        r["x15"] += x["speedup"] >= 1.5
    tot = {"n": 0, "sig": 0, "x15": 0, "sp": [], "bad": 0}
    gm = lambda v: math.exp(sum(math.log(s) for s in v) / len(v)) if v else float("nan")
    print(f"timing {d.get('timing')}, device {d.get('device')}: naive program (the task's L0, no directive) vs the baseline; speedup = baseline time / naive time\n")
    print("| category | workloads | naive significantly faster | naive >= 1.5x faster | geomean naive speedup | not ok |")
    print("|---|---|---|---|---|---|")
    for c in sorted(rows):
        r = rows[c]
        print(f"| {c} | {r['n']} | {r['sig']} ({100 * r['sig'] / r['n']:.1f}%) | {r['x15']} ({100 * r['x15'] / r['n']:.1f}%) | {gm(r['sp']):.3f} | {r['bad']} |")
        for k in tot:
            tot[k] += r[k]
    n = tot["n"]
    print(f"| **all** | {n} | {tot['sig']} ({100 * tot['sig'] / n:.1f}%) | {tot['x15']} ({100 * tot['x15'] / n:.1f}%) | {gm(tot['sp']):.3f} | {tot['bad']} |")
    ok = [x for x in d["attempts"] if x["status"] == "ok"]
    ok.sort(key=lambda x: -x["speedup"])
    print(f"\nWhere the naive program gains most (top {a.worst}):\n")
    print("| workload | category | naive speedup | 95% interval | baseline ms | naive ms |")
    print("|---|---|---|---|---|---|")
    for x in ok[: a.worst]:
        lo, hi = x["speedup_interval"]
        print(f"| {x['task']} | {cat.get(x['task'], '?')} | {x['speedup']:.2f}x | [{lo:.2f}, {hi:.2f}] | {x['baseline_ms']:.4f} | {x['candidate_ms']:.4f} |")
    bad = [x for x in d["attempts"] if x["status"] != "ok"]
    if bad:
        print("\nNot ok:\n")
        for x in bad:
            print(f"- {x['task']}: {x['status']}: {x['message'][:200]}")


if __name__ == "__main__":
    main()
