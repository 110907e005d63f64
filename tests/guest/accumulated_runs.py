#!/usr/bin/env python3
"""A profile accumulated over runs (DCPI §6.2: "each program on its SPEC95
workload three times"), scored against the runs' summed truths.

On 1 CPU a run is deterministic under icount, so repeating it samples the
same instructions; `dcpi run --seed N` gives each run its own random periods.
Three runs of the copy workload on the qemu machine (period 4096 + [0, 4096),
exact counts from the exec_counts plugin):
  1. seed 1 into database S, epoch 1, truth T1;
  2. seed 2 into S, epoch 1, truth T2;
  3. seed 2 alone into database B, and 4. again into B2.
Checks: run 4 repeats run 3 exactly, so B is run 2 and S less B is run 1; run 1
differs from run 2 (the seed is what moved the samples), both runs took about
the same number of samples; `dcpi score --truth T1,T2` puts nearly every
sample of copy_loop within 5 % of the summed exact counts (one sigma of its
samples is under 1 %), while the single truth T1 puts none there (the
estimate is twice its count); and a truth of another machine cannot be added.

Usage: accumulated_runs.py BUILD_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary, run_dcpi

BUILD = sys.argv[1]
COPY = os.path.join(BUILD, "guest", "workloads", "copy")
CHECKS = Checks()
expect = CHECKS.expect


def dcpi(*args):
    return run_dcpi(BUILD, *args, timeout=600)


def run(db, seed, truth=None):
    args = ["run", "--quiet", "--cpus", "1", "--workloads", "copy", "--period", "4096",
            "--seed", str(seed), "--epoch", "1", "--db", db]
    dcpi(*args, *(["--truth", truth] if truth else []))


def samples_by_procedure(db):
    rows = json.loads(dcpi("prof", "--db", db, "--json"))["rows"]
    return {(r["image"], r["procedure"]): r["samples"] for r in rows}


def score(db, truth):
    return json.loads(dcpi("score", "--db", db, "--image", COPY, "--procedure", "copy_loop",
                           "--truth", truth, "--json"))


def main():
    with tempfile.TemporaryDirectory() as work:
        both, alone = os.path.join(work, "S"), os.path.join(work, "B")
        t1, t2 = os.path.join(work, "t1"), os.path.join(work, "t2")
        run(both, 1, t1)
        run(both, 2, t2)
        run(alone, 2)
        run(alone + "2", 2)
        summed, second = samples_by_procedure(both), samples_by_procedure(alone)
        expect(samples_by_procedure(alone + "2") == second,
               "a run on 1 CPU repeated with its seed samples the same instructions")
        first = {k: v - second.get(k, 0) for k, v in summed.items()}
        expect(all(v >= 0 for v in first.values()),
               "the accumulated profile holds all of run 2's samples")
        loop = next(k for k in summed if k[1].startswith("copy_loop"))
        n1, n2 = first[loop], second[loop]
        expect(n1 != n2 or first != second, f"seeds 1 and 2 sampled differently ({n1}, {n2})")
        expect(abs(n1 - n2) <= 0.03 * n2, f"both runs took about as many samples ({n1}, {n2})")

        summed_score = score(both, f"{t1},{t2}")["instructions"]
        expect(summed_score["within_5"] >= 0.95,
               f"against T1,T2: {summed_score['within_5']:.3f} of copy_loop's "
               f"{summed_score['total_weight']} samples within 5 %")
        one_score = score(both, t1)["instructions"]
        expect(one_score["within_5"] == 0 and one_score["buckets"][">=+45%"] > 0.9 * (
            one_score["total_weight"]), "against T1 alone the estimates are twice the counts")

        qemu_truth = os.path.join(work, "v1")
        with open(qemu_truth, "w") as f:
            f.write("dcpi-exec-counts 1\ninsn 120000000 1\n")
        with open(t1) as f:
            header = f.readline().strip()
        mixed = subprocess.run([dcpi_binary(BUILD), "score", "--db", both, "--image", COPY,
                                "--truth", f"{t1},{qemu_truth}"], capture_output=True, text=True,
                               timeout=600)
        expect(mixed.returncode != 0 and "cannot be added" in mixed.stderr and
               len(mixed.stderr.strip().splitlines()) == 1,
               f"a truth of another version ({header} + version 1) is a one-line error: "
               f"{mixed.stderr.strip()!r}")
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
