#!/usr/bin/env python3
"""Benchmark: the sample-placement oracle over random programs (issue 25 item 2).

Why: issue 25 asks that the ev5 machine's samples sit where its cycles are
(oracle ratio <= 1.25, every instruction with >= 200 expected samples within
4 sigma) on every seed of a generator of random Alpha programs. This runs
seeds 1..N through tests/ev5gen/placement_check.py (generate, build, check
the output against qemu-alpha, run on ev5 at period 8192 + [0, 16384), score),
prints one row per seed (ratio, judged instructions, outliers, the worst
instruction with its text and the generated feature it belongs to), then the
worst ratio and its outliers, and the outliers aggregated by feature and by
mnemonic: which kinds of code the samples miss. Nothing is thresholded here:
the numbers are printed as measured.

Usage: bench_placement.py BUILD [--seeds N] [--first S] [-j J] [--json FILE]
                          [--workdir DIR] [--period P (default 8192)]
"""
import argparse
import collections
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from ev5gen import placement_check


def run_seed(build, seed, workdir, period):
    """One seed in its own directory (the runs are independent processes)."""
    directory = os.path.join(workdir, f"seed{seed}")
    os.makedirs(directory, exist_ok=True)
    try:
        return placement_check.check_seed(build, seed, directory, period=period)
    except Exception as error:  # a crashed seed is a row, not the end of the benchmark
        return {"seed": seed, "failures": [f"{type(error).__name__}: {error}"]}


def row(result):
    p = result.get("placement")
    if not p:
        return f"{result['seed']:>5}  {'-':>7} {'-':>6} {'-':>5}  FAIL: {result['failures'][:1]}"
    worst = max(p["outliers"], key=lambda o: abs(o["z"]), default=None)
    named = (f"{worst['pc']} {worst['z']:+.1f}s {worst['instruction']} [{worst['feature']}]"
             if worst else "-")
    flag = "  FAIL: " + "; ".join(result["failures"]) if result["failures"] else ""
    return f"{result['seed']:>5}  {p['ratio']:>7.2f} {p['judged']:>6} {p['outliers_total']:>5}  {named}{flag}"


def by_feature(results):
    """Per feature: seeds that had it, seeds with outliers in it, outliers, sum |z|."""
    table = collections.defaultdict(lambda: {"seeds": 0, "seeds_with_outliers": 0,
                                             "outliers": 0, "abs_z": 0.0})
    for r in results:
        for feature in set(r.get("features", {}).values()):
            table[feature]["seeds"] += 1
        outliers = r.get("placement", {}).get("outliers", [])
        for feature in {o["feature"] for o in outliers}:
            table[feature]["seeds_with_outliers"] += 1
        for o in outliers:
            table[o["feature"]]["outliers"] += 1
            table[o["feature"]]["abs_z"] += abs(o["z"])
    return dict(table)


def by_mnemonic(results):
    """Outliers per (feature, mnemonic, sign): which instructions gain or lose samples."""
    counts = collections.Counter()
    for r in results:
        for o in r.get("placement", {}).get("outliers", []):
            mnemonic = o["instruction"].split()[0] if o["instruction"] else "?"
            counts[(o["feature"], mnemonic, "+" if o["z"] > 0 else "-")] += 1
    return counts


def summary(results, out=sys.stdout):
    scored = [r for r in results if r.get("placement")]
    failed = [r for r in results if r["failures"]]
    print(f"\n{len(results)} seeds, {len(scored)} scored, {len(failed)} with failures", file=out)
    if scored:
        ratios = sorted(r["placement"]["ratio"] for r in scored)
        worst = max(scored, key=lambda r: r["placement"]["ratio"])
        within = sum(1 for x in ratios if x <= 1.25)
        clean = sum(1 for r in scored if r["placement"]["outliers_total"] == 0)
        print(f"ratio: median {ratios[len(ratios) // 2]:.2f}, worst {ratios[-1]:.2f} (seed "
              f"{worst['seed']}); {within} seeds <= 1.25, {clean} without outliers", file=out)
        for o in worst["placement"]["outliers"]:
            print(f"  {o['pc']} {o['samples']:>7} for {o['expected']:>9.1f} {o['z']:+7.1f} sigma "
                  f"{o['function']} ({o['feature']}): {o['instruction']}", file=out)
    print("\noutliers by feature (seeds having it, seeds with outliers in it, outliers, sum |z|):",
          file=out)
    for feature, f in sorted(by_feature(results).items(), key=lambda kv: -kv[1]["abs_z"]):
        print(f"  {feature:<12} {f['seeds']:>5} {f['seeds_with_outliers']:>5} {f['outliers']:>6} "
              f"{f['abs_z']:>9.0f}", file=out)
    print("\noutliers by feature and instruction (+ more samples than the truth, - fewer):",
          file=out)
    for (feature, mnemonic, sign), n in by_mnemonic(results).most_common(20):
        print(f"  {feature:<12} {mnemonic:<8} {sign} {n:>5}", file=out)
    for r in failed:
        print(f"seed {r['seed']}: {'; '.join(r['failures'])}", file=out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--json")
    parser.add_argument("--workdir")
    # 8192, with a range of twice it (placement_check.period_options).
    parser.add_argument("--period", type=int, default=8192)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    seeds = range(args.first, args.first + args.seeds)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or tmp
        options = placement_check.period_options(args.period)
        print(f"ev5, 1 CPU, period {options[1]} + [0, {options[3]})", flush=True)
        print(f"{'seed':>5}  {'ratio':>7} {'judged':>6} {'out':>5}  worst (pc, z, instruction, "
              f"feature)", flush=True)
        results = []
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for result in pool.map(lambda s: run_seed(build, s, workdir, args.period), seeds):
                print(row(result), flush=True)
                results.append(result)
    summary(results)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"seeds": results, "by_feature": by_feature(results)}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
