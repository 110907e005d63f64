#!/usr/bin/env python3
"""Benchmark of ProfileMe on the ev5 machine (issue 27; docs/profileme.md):
its estimates against the model's truth on every bundled workload, and
what a record costs.

For each workload: `dcpi run --machine ev5 --cpus 1 --profileme-interval
INTERVAL --truth`, then `dcpi score --json` on the workload's image, whose
`profileme` section holds seed 004's Figure 3 measure (instructions with
>= 16 records whose estimate k x S lies within 1 +- 1/sqrt(k) of the exact
count: executions from retired records, D-cache misses from records with
the bit; a Poisson count gives 68 %, the paper about two thirds) and each
procedure's cycles from the records' latencies x S against the truth's
(within 2 sigma).

Cost (--skip-costs leaves it out): compress with and without `--profileme`
at the default interval (one record per 65536 fetched instructions, mean),
1 CPU: the workload's modelled cycles (exact: the model's clock under
icount) and the slowdown, beside the cycle sampler's own records.

The real mix (BUILD/mixes/real, when built) runs once too, and each of its
programs and libraries with records is a row (real:NAME).

--paired W samples pairs (`--profileme-paired W`, seed 004 §5.2.3) and adds
the wasted issue slots: per image, the procedures with >= 1000 records
within 10 % of the truth's, and the image's estimate against the truth; the
cost then compares paired with single records.

Usage: bench_profileme.py BUILD_DIR [--workloads a,b] [--interval N]
                          [--paired W] [--mixes real] [--json FILE] [--skip-costs]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import dcpi_binary

WORKLOADS = ["copy", "stream", "compress", "matmul", "mathcall", "callpal", "bytecode"]


def dcpi(build, *args):
    done = subprocess.run([dcpi_binary(build), *args], capture_output=True, text=True,
                          timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"dcpi {' '.join(args)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return done


def sampling(interval, paired):
    return ["--profileme-interval", str(interval)] + (
        ["--profileme-paired", str(paired)] if paired else [])


def accuracy(build, workload, interval, paired):
    with tempfile.TemporaryDirectory() as tmp:
        db, truth = os.path.join(tmp, "db"), os.path.join(tmp, "truth")
        dcpi(build, "run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", workload,
             *sampling(interval, paired), "--db", db, "--truth", truth)
        image = os.path.join(build, "guest", "workloads", workload)
        score = json.loads(dcpi(build, "score", "--db", db, "--truth", truth, "--image", image,
                                "--json").stdout)
    return profileme_row(workload, score)


def profileme_row(label, score):
    p = score["profileme"] or {}
    executions, misses = p.get("executions", {}), p.get("dcache_misses", {})
    return {"workload": label, "records": p.get("records", 0), "interval": p.get("interval"),
            "executions_k16": executions.get("instructions_k16", 0),
            "executions_within": executions.get("share_k16", 0),
            "dmiss_k16": misses.get("instructions_k16", 0),
            "dmiss_within": misses.get("share_k16", 0),
            "procedures": len(p.get("procedures", [])),
            "procedures_judged": p.get("procedures_judged", 0),
            "procedures_within_2sigma": p.get("procedures_within_2sigma", 0),
            "waste_judged": p.get("waste_judged", 0),
            "waste_within_10": p.get("waste_within_10", 0),
            "wasted_estimated": sum(w["estimated"] for w in p.get("wasted_slots", [])),
            "wasted_true": sum(w["true"] for w in p.get("wasted_slots", []))}


def real_mix(build, interval, paired):
    """The real mix's programs and libraries (Debian sources, BUILD/mixes/real),
    one run, each ELF scored on its own."""
    real = os.path.join(build, "mixes", "real")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db, truth = os.path.join(tmp, "db"), os.path.join(tmp, "truth")
        dcpi(build, "run", "--quiet", "--machine", "ev5", "--cpus", "1", "--mix", "real",
             *sampling(interval, paired), "--db", db, "--truth", truth)
        for folder in ("bin", "lib"):
            for name in sorted(os.listdir(os.path.join(real, folder))):
                done = subprocess.run([dcpi_binary(build), "score", "--db", db, "--truth", truth,
                                       "--image", os.path.join(real, folder, name), "--json"],
                                      capture_output=True, text=True, timeout=1800)
                if done.returncode == 0 and (json.loads(done.stdout).get("profileme") or {}).get(
                        "records"):
                    rows.append(profileme_row(f"real:{name}", json.loads(done.stdout)))
    return rows


def workload_cycles(build, extra):
    with tempfile.TemporaryDirectory() as tmp:
        done = dcpi(build, "run", "--machine", "ev5", "--cpus", "1", "--workloads", "compress",
                    *extra, "--db", os.path.join(tmp, "db"))
    cycles = int(re.search(r"init ran (\d+) cycles", done.stderr).group(1))
    samples = int(re.search(r"dcpi run: (\d+) samples \(", done.stderr).group(1))
    return cycles, samples


def costs(build, paired):
    plain, cycle_samples = workload_cycles(build, [])
    profiled, all_samples = workload_cycles(build, ["--profileme"])
    result = {"compress_cycles": plain, "compress_cycles_profileme": profiled,
              "slowdown_percent": 100 * (profiled / plain - 1),
              "cycle_samples": cycle_samples, "samples_with_profileme": all_samples}
    if paired:
        pairs, _ = workload_cycles(build, ["--profileme-paired", str(paired)])
        result["compress_cycles_paired"] = pairs
        result["paired_slowdown_percent"] = 100 * (pairs / plain - 1)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--interval", type=int, default=8192)
    parser.add_argument("--json", help="write the table as JSON here")
    parser.add_argument("--skip-costs", action="store_true")
    parser.add_argument("--paired", type=int, default=0, help="pair window W (0: single records)")
    parser.add_argument("--mixes", default=None,
                        help="mixes to score too (default: real, if it was built)")
    args = parser.parse_args()
    rows = [accuracy(args.build, w, args.interval, args.paired)
            for w in args.workloads.split(",") if w]
    mixes = args.mixes
    if mixes is None:
        mixes = "real" if os.path.isdir(os.path.join(args.build, "mixes", "real", "bin")) else ""
    if "real" in mixes.split(","):
        rows += real_mix(args.build, args.interval, args.paired)
    print(f"machine ev5 (21164 model), 1 CPU, one record per ~{args.interval} fetched "
          "instructions (mean; exponential intervals)")
    print(f"{'workload':<20} {'records':>8}  {'executions k>=16 within':>24}  "
          f"{'D-cache misses k>=16':>21}  {'procedures (>= 16 records) within 2 sigma':>42}")
    for r in rows:
        print(f"{r['workload']:<20} {r['records']:>8.0f}  {r['executions_k16']:>12} "
              f"{100 * r['executions_within']:>10.1f}%  {r['dmiss_k16']:>10} "
              f"{100 * r['dmiss_within']:>9.1f}%  {r['procedures_within_2sigma']:>14} of "
              f"{r['procedures_judged']:<5} ({r['procedures']} with records)")
    if args.paired:
        print(f"\nwasted issue slots (pairs, W = {args.paired}): procedures with >= 1000 records "
              "within 10 %, and the image's estimate against the truth")
        for r in rows:
            error = (r["wasted_estimated"] / r["wasted_true"] - 1) if r["wasted_true"] else 0
            print(f"{r['workload']:<20} {r['waste_within_10']:>4} of {r['waste_judged']:<4} "
                  f"{r['wasted_estimated']:>16.0f} vs {r['wasted_true']:>16.0f}  "
                  f"({100 * error:+.1f} %)")
    result = {"machine": "ev5", "cpus": 1, "interval": args.interval, "paired": args.paired,
              "rows": rows}
    if not args.skip_costs:
        c = costs(args.build, args.paired)
        result["costs"] = c
        print(f"cost, compress, default interval: {c['compress_cycles']} -> "
              f"{c['compress_cycles_profileme']} modelled cycles (+{c['slowdown_percent']:.2f} %, "
              f"exact); samples {c['cycle_samples']} cycles only, {c['samples_with_profileme']} "
              "with the pm_* entries")
        if args.paired:
            print(f"cost, paired (W = {args.paired}): {c['compress_cycles']} -> "
                  f"{c['compress_cycles_paired']} (+{c['paired_slowdown_percent']:.2f} %, exact)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
