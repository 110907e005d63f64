#!/usr/bin/env python3
"""Many runs, one database (issue 16): short `dcpi run`s of different
workloads launched at the same time, each writing its own database (as GNU
parallel or a Slurm job array would, docs/profile-db.md "Merging
databases"), then `dcpi db merge OUT IN...`. The merged database holds every
run's samples (the sum of the run summaries), one epoch per run in the order
given, passes `dcpi db check`, and `dcpi prof` names the procedures of every
run with no --images.

  db_merge_parallel.py BUILD_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary

BUILD = sys.argv[1]
DCPI = dcpi_binary(BUILD)
WORKLOADS = ("copy", "matmul", "callpal")  # short ones, 1 CPU each
CHECKS = Checks()
expect = CHECKS.expect


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
        runs = [subprocess.Popen([DCPI, "run", "--quiet", "--json", "--cpus", "1", "--workloads", w,
                                  "--db", os.path.join(tmp, w + ".db")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for w in WORKLOADS]
        samples = {}
        for workload, run in zip(WORKLOADS, runs):
            out, err = run.communicate(timeout=600)
            expect(run.returncode == 0, f"dcpi run --workloads {workload} exits 0 ({err[-300:]!r})")
            samples[workload] = json.loads(out)["samples"] if run.returncode == 0 else 0
        out_db = os.path.join(tmp, "all.db")
        merge = subprocess.run([DCPI, "db", "merge", out_db,
                                *(os.path.join(tmp, w + ".db") for w in WORKLOADS)],
                               capture_output=True, text=True)
        expect(merge.returncode == 0, f"dcpi db merge exits 0 ({merge.stderr.strip()!r})")
        print(merge.stdout, end="")
        total = sum(samples.values())
        expect(f"3 epochs, {total} samples from 3 databases" in merge.stdout,
               f"the merged database holds the sum of the runs' samples ({total})")
        check = subprocess.run([DCPI, "db", "check", out_db], capture_output=True, text=True)
        expect(check.returncode == 0 and f"{total} samples" in check.stdout,
               f"dcpi db check passes on the merged database: {check.stdout.strip()}")
        for epoch, workload in enumerate(WORKLOADS, 1):
            prof = subprocess.run([DCPI, "prof", "--db", out_db, "--epoch", str(epoch), "--json"],
                                  capture_output=True, text=True)
            rows = json.loads(prof.stdout)["rows"] if prof.returncode == 0 else []
            mine = [r for r in rows if r["image_path"] == "/bin/" + workload]
            named = [r for r in mine if not re.search(r"\+0x", r["procedure"])]
            expect(prof.returncode == 0 and sum(r["samples"] for r in rows) == samples[workload],
                   f"epoch {epoch} is the {workload} run ({samples[workload]} samples)")
            expect(mine and len(named) == len(mine),
                   f"epoch {epoch}: /bin/{workload}'s procedures named with no --images "
                   f"({[r['procedure'] for r in mine[:3]]})")
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
