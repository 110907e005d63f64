#!/usr/bin/env python3
"""Figure 8 on the `real` mix as DCPI measured it: a profile accumulated over
several runs (DCPI §6.2: "running each program on its SPEC95 workload three
times"; one run against 80 took gcc from 23 % to 53 % within 5 %).

Runs the real mix R times on the ev5 machine (1 CPU, issue 25 item 7's period,
8192 + [0, 1024)), run i with `dcpi run --seed i` into epoch i of one
database, each with its truth. Then, per image with at least --min-samples
samples, `dcpi score` of epoch 1 against run 1's truth and of all epochs
against the summed truths (`--truth T1,T2,...`): samples, the share within
5/10/15 % with the flow estimator and DCPI's, and the placement oracle. On 1
CPU every run executes the same instructions; only the samples differ.

Prints a table and writes JSON (--json). Guest figures are the ev5 model's.

Usage: PYTHONPATH=tests:tests/bench bench_real_runs.py BUILD [--runs 3] [--json FILE]
       [--mix NAME] [--check]   (--check: exit 1 unless every image's samples from
       all runs are the runs' count times run 1's within 10 %; CTest's smoke runs it
       on the copy mix)
"""
import argparse
import json
import os
import sys
import tempfile
import time

from bench_ev5 import dcpi  # beside this script

PERIOD, PERIOD_RANGE = 8192, 1024


def run_mix(build, mix, db, epoch, truth):
    started = time.monotonic()
    dcpi(build, "run", "--quiet", "--machine", "ev5", "--cpus", "1", "--mix", mix,
         "--period", str(PERIOD), "--period-range", str(PERIOD_RANGE), "--seed", str(epoch),
         "--epoch", str(epoch), "--db", db, "--truth", truth)
    return time.monotonic() - started


def images_with_samples(build, db, minimum):
    rows = json.loads(dcpi(build, "prof", "--db", db, "--by", "image", "--json").stdout)["rows"]
    return [r["image"] for r in rows if r["samples"] >= minimum]


def score(build, db, image, truths, epoch=None):
    args = ["score", "--db", db, "--truth", ",".join(truths), "--image", image, "--json"]
    report = json.loads(dcpi(build, *args, *(["--epoch", str(epoch)] if epoch else [])).stdout)
    row = {"samples": report["instructions"]["total_weight"],
           "placement_ratio": report["placement"]["ratio"]}
    for estimator in ("flow", "dcpi"):
        shares = report["estimates"][estimator]["instructions"]
        row[estimator] = [shares[f"within_{p}"] for p in (5, 10, 15)]
    return row


def pooled(rows, key):
    """Every image's shares weighed by its samples: the mix as one profile."""
    total = sum(r[key]["samples"] for r in rows)
    return {e: [sum(r[key][e][i] * r[key]["samples"] for r in rows) / total for i in range(3)]
            for e in ("flow", "dcpi")} | {"samples": total}


def percents(shares):
    return "/".join(f"{100 * s:.1f}" for s in shares)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mix", default="real")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--min-samples", type=int, default=5000)
    parser.add_argument("--keep", help="keep the database and truths in this directory")
    parser.add_argument("--json", help="write the results as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or scratch
        os.makedirs(work, exist_ok=True)
        db = os.path.join(work, "db")
        truths, seconds = [], []
        for epoch in range(1, args.runs + 1):
            truths.append(os.path.join(work, f"truth{epoch}.txt"))
            seconds.append(run_mix(args.build, args.mix, db, epoch, truths[-1]))
            print(f"run {epoch}: {seconds[-1]:.0f} s", file=sys.stderr)
        rows = []
        for image in images_with_samples(args.build, db, args.min_samples * args.runs):
            rows.append({"image": image,
                         "one_run": score(args.build, db, image, truths[:1], epoch=1),
                         "all_runs": score(args.build, db, image, truths)})
    rows.append({"image": "all, by samples", "one_run": pooled(rows, "one_run"),
                 "all_runs": pooled(rows, "all_runs")})
    print(f"{args.mix} mix, ev5, 1 CPU, period {PERIOD} + [0, {PERIOD_RANGE}); Figure 8 within "
          f"5/10/15 % (flow; DCPI's), 1 run and {args.runs} runs accumulated")
    print(f"{'image':<18} {'samples':>8} {'flow, 1 run':>17} {'DCPI, 1 run':>17} "
          f"{'samples':>8} {f'flow, {args.runs} runs':>17} {f'DCPI, {args.runs} runs':>17}")
    for r in rows:
        one, every = r["one_run"], r["all_runs"]
        print(f"{r['image']:<18} {one['samples']:>8} {percents(one['flow']):>17} "
              f"{percents(one['dcpi']):>17} {every['samples']:>8} {percents(every['flow']):>17} "
              f"{percents(every['dcpi']):>17}")
    unexpected = [r["image"] for r in rows[:-1]
                  if abs(r["all_runs"]["samples"] / (args.runs * r["one_run"]["samples"]) - 1) > 0.1]
    if args.check and (not rows[:-1] or unexpected):
        print(f"FAILED: samples of all runs not {args.runs} x run 1's: {unexpected or 'no image'}")
        return 1
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": "ev5", "cpus": 1, "period": [PERIOD, PERIOD_RANGE],
                       "runs": args.runs, "run_seconds": seconds, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
