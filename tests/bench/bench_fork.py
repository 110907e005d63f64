#!/usr/bin/env python3
"""Benchmark: what fork costs for a given resident size (issue 29).

The kernel copies every user page at fork (docs/linux-programs.md says why
there is no copy-on-write), so a fork costs in proportion to what the
process has resident. tests/linux/forkcost.c touches N MB of heap and
forks a child that exits at once, timing fork() with the Alpha's cycle
counter from just before the call to its return in the parent and to the
child's first instruction; the lesser is the copy plus one switch. Run on
the qemu machine (one instruction per cycle under icount: the cycles are
the kernel's instructions, exact and the same on every run) on 1 CPU.

Printed: per size the cycles, the cycles per 8 KB page touched, and the
virtual milliseconds at the guest's 250 MHz. --json writes the rows.

Usage: bench_fork.py BUILD [--sizes 0,1,4,16,32] [--json FILE]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import dcpi_binary

CYCLES_PER_SECOND = 250_000_000  # the guest's RPCC (kernel/clock.h)
PAGE = 8192


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--sizes", default="0,1,4,16,32")
    parser.add_argument("--json")
    args = parser.parse_args()
    program = os.path.join(args.build, "tests", "linux", "forkcost")
    sizes = [s for s in args.sizes.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([dcpi_binary(args.build), "run", "--cpus", "1", "--machine", "qemu",
                               "--db", os.path.join(tmp, "f.db"), "--timeout", "300", "--quiet",
                               "--", program, *sizes],
                              capture_output=True, text=True, timeout=360)
    if done.returncode != 0:
        print(f"FAILED: dcpi run -- forkcost: {done.stderr[-500:]}")
        return 1
    rows = []
    for mb, parent, child in re.findall(r"^fork (\d+) parent (\d+) child (\d+)$", done.stdout,
                                        re.M):
        cost = min(int(parent), int(child))
        pages = int(mb) * (1 << 20) // PAGE
        rows.append({"resident_mb_touched": int(mb), "parent_cycles": int(parent),
                     "child_cycles": int(child), "fork_cycles": cost,
                     "cycles_per_touched_page": round(cost / pages, 1) if pages else None,
                     "virtual_ms": round(cost * 1000 / CYCLES_PER_SECOND, 3)})
    if len(rows) != len(sizes):
        print(f"FAILED: {len(rows)} of {len(sizes)} sizes measured:\n{done.stdout[-500:]}")
        return 1
    print("machine qemu (1 instruction per cycle), 1 CPU; fork = min(parent, child) cycles")
    print(f"{'MB touched':>10} {'fork cycles':>12} {'per page':>9} {'virtual ms':>11}")
    for r in rows:
        per_page = r["cycles_per_touched_page"]
        print(f"{r['resident_mb_touched']:>10} {r['fork_cycles']:>12} "
              f"{per_page if per_page is not None else '-':>9} {r['virtual_ms']:>11}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": "qemu", "cpus": 1, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
