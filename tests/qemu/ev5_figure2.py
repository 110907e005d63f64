#!/usr/bin/env python3
"""The DCPI paper's Figure 2 on the ev5 machine (issue 25 item 4): the
13-instruction copy block (workloads/fig2copy.c) under `dcpi calc`. As in the
paper: best case 8/13, the largest stall at the third `stq` with the
`ldq t6` that feeds it as culprit (`d` among its bubbles), a CPI many times
the best case; the truth agrees on where the stall is and why.

Usage: ev5_figure2.py BUILD_DIR"""
import os
import re
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary

BUILD = sys.argv[1]
DCPI = dcpi_binary(BUILD)
PROGRAM = os.path.join(BUILD, "guest", "workloads", "fig2copy")
CHECKS = Checks()
expect = CHECKS.expect

with tempfile.TemporaryDirectory() as tmp:
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    db, truth = os.path.join(tmp, "f.db"), os.path.join(tmp, "f.truth")
    done = subprocess.run([DCPI, "run", "--quiet", "--machine", "ev5", "--cpus", "1", "--period",
                           "2048", "--db", db, "--truth", truth, "--", PROGRAM, "3"],
                          capture_output=True, text=True, timeout=600)
    expect(done.returncode == 0, f"dcpi run -- fig2copy: {done.stderr[-500:]}")
    calc = subprocess.run([DCPI, "calc", "--db", db, "--procedure", "copy_fig2", "--truth", truth],
                          capture_output=True, text=True, timeout=120).stdout
    block = calc[calc.find("Best-case 8/13"):]
    expect("Best-case 8/13 = 0.62CPI" in calc, "best case 8/13 = 0.62 CPI, as in the paper")
    actual = re.search(r"Actual [0-9.]+/13 = ([0-9.]+)CPI", block)
    # Issue 25 item 4: within 25 % of the paper's 10.77 (the memory bus's
    # 80 cycles per line were calibrated on this loop: docs/ev5-machine.md).
    expect(actual and 0.75 * 10.77 <= float(actual.group(1)) <= 1.25 * 10.77,
           f"actual CPI within 25 % of the paper's 10.77 ({actual.group(1) if actual else '?'})")
    rows = re.findall(r"^([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\d+)\s+[0-9.]+\s+([0-9.]+)cy\s+(\S*)",
                      block, re.M)
    ldq_t6 = next((pc for pc, op, args, *_ in rows if op == "ldq" and args.startswith("t6")), None)
    worst = max(rows, key=lambda r: float(r[4])) if rows else None
    expect(worst and worst[1] == "stq" and worst[2].startswith("t6,"),
           f"the largest stall is at the third stq, stq t6 (got {worst})")
    expect(worst and ldq_t6 and worst[5] == ldq_t6,
           f"its culprit is the ldq t6 at {ldq_t6} (got {worst[5] if worst else '?'})")
    # The second largest stall is the first stq's, on its ldq t4 (the paper's
    # 18.0 cycles, culprit 9810): the second 16 bytes of the line ldq t6
    # started come a data cycle later.
    ldq_t4 = next((pc for pc, op, args, *_ in rows if op == "ldq" and args.startswith("t4")), None)
    second = sorted(rows, key=lambda r: float(r[4]))[-2] if len(rows) > 1 else None
    expect(second and second[1] == "stq" and second[2].startswith("t4,") and
           float(second[4]) > 2 and second[5] == ldq_t4,
           f"the second largest stall is the first stq's, culprit ldq t4 (got {second})")
    true_part = re.search(r"stq\s+t6,16\(t2\).*\| true ([0-9.]+)cy: dcache", block)
    expect(true_part is not None, "the truth has the stall there too, a D-cache miss")
    print(block[:1800])
sys.exit(CHECKS.exit_code())
