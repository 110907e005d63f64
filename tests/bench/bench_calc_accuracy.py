#!/usr/bin/env python3
"""DCPI Figures 8 and 9 for every bundled workload (issue 17): how close
dcpi calc's frequency estimates come to exact counts, with DCPI's estimate
(per frequency class, §6.1.3, and local propagation, §6.1.4) and with the
flow-consistent one (`dcpi calc --estimate flow`), so the better one can
become the default.

For each workload: boot /etc/<workload>.mix on 1 CPU at a dense period
(period=2048 period_range=4096, mean 4095.5, as bench_ev5's: a range of 256
is shorter than callpal's loop with its system call, whose samples then
fell in step with the loop, every estimate +25 %; DCPI §4.1.1 randomized
the period against that) under the exec_counts plugin
(tests/support/calc_guest.py), ingest the profile, and run `dcpi score --json`
over every procedure of the workload's image with samples. Reported per
estimator: the share of CYCLES samples whose instruction's estimate is
within 5/10/15 % (Figure 8) and the share of edge executions within 5 %
(Figure 9); and the procedures scored and those with missing edges.

The exact counts are per virtual PC: /bin/init shares the user addresses, but
it sleeps in wait() while the workload runs.

Usage: bench_calc_accuracy.py BUILD_DIR PLUGIN_SO [--workloads a,b] [--json FILE]
"""
import argparse
import json
import os
import sys

from support.calc_guest import Guest, work_files

WORKLOADS = ["copy", "stream", "compress", "matmul", "mathcall", "callpal", "bytecode",
             "manyproc", "parallel4"]
APPEND = "init=/bin/init script=/etc/{}.mix period=2048 period_range=4096"


def image_of(guest, workload):
    # manyproc's time goes to its children, /bin/shortlived.
    name = "shortlived" if workload == "manyproc" else workload
    return os.path.join(guest.guest, "workloads", name)


def measure(guest, plugin, workload):
    with work_files() as (db, counts):
        console, exact = guest.profile_with_exact_counts(plugin, APPEND.format(workload), db,
                                                         counts)
        if "DCPI-DONE" not in console or exact is None:
            raise RuntimeError(f"{workload}: no profile or no exact counts\n{console[-2000:]}")
        score = json.loads(guest.dcpi("score", "--db", db, "--counts", counts, "--image",
                                      image_of(guest, workload), "--json"))
    row = {"workload": workload, "procedures": score["procedures"],
           "procedures_missing_edges": score["procedures_missing_edges"],
           "samples": score["instructions"]["total_weight"]}
    for name, scores in score["estimates"].items():
        for what in ("instructions", "edges"):
            for percent in (5, 10, 15):
                row[f"{name}_{what}_within_{percent}"] = scores[what][f"within_{percent}"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("plugin")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--json", help="write the table as JSON here")
    args = parser.parse_args()
    guest = Guest(args.build)
    rows = [measure(guest, args.plugin, w) for w in args.workloads.split(",")]
    print(f"{'workload':<10} {'samples':>8} {'procs':>5} {'missing':>7}   "
          f"{'Figure 8 within 5/10/15 %: dcpi':>33} {'flow':>19}   "
          f"{'Figure 9 within 5 %: dcpi':>25} {'flow':>6}")
    for r in rows:
        def fig8(name):
            return " ".join(f"{100 * r[f'{name}_instructions_within_{p}']:5.1f}"
                            for p in (5, 10, 15))
        print(f"{r['workload']:<10} {r['samples']:>8.0f} {r['procedures']:>5} "
              f"{r['procedures_missing_edges']:>7}   {fig8('dcpi'):>33} {fig8('flow'):>19}   "
              f"{100 * r['dcpi_edges_within_5']:>25.1f} {100 * r['flow_edges_within_5']:>6.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"period": "2048 + [0, 256), mean 2175.5", "cpus": 1, "rows": rows}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
