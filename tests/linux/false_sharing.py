#!/usr/bin/env python3
"""False sharing on the ev5 machine's multiprocessor (issue 25 item 6):
tests/linux/false_sharing.c on 4 CPUs, its four threads' counters in one
64-byte line and then a line apart. The output equals qemu-alpha's; in the
truth, the threads' loop waits on D-cache misses with the counters in one
line (each CPU's store takes the line from the others) and hardly at all
with them apart, and takes more cycles.

At a dense period (512): under -icount QEMU runs the vCPUs round-robin,
each until the next virtual-timer deadline, so the CPUs' accesses
interleave only as finely as the sampling interrupts of all four CPUs cut
them (docs/qemu-deviations.md); at the default 60 K period a CPU runs
thousands of iterations alone and the line rarely moves.

Usage: false_sharing.py BUILD LINUX_DIR"""
import os
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import Checks, dcpi_binary

BUILD, LINUX = sys.argv[1], sys.argv[2]
DCPI = dcpi_binary(BUILD)
PROGRAM = os.path.join(LINUX, "false_sharing")
ROUNDS = "200000"
CHECKS = Checks()
expect = CHECKS.expect


def oracle(layout):
    done = subprocess.run(["qemu-alpha", "-L", "/usr/alpha-linux-gnu", PROGRAM, layout, ROUNDS],
                          capture_output=True, text=True, timeout=120)
    expect(done.returncode == 0, f"false_sharing {layout} exits 0 under qemu-alpha")
    return done.stdout


def on_ev5(tmp, layout):
    db, truth = os.path.join(tmp, f"{layout}.db"), os.path.join(tmp, f"{layout}.truth")
    done = subprocess.run([DCPI, "run", "--machine", "ev5", "--cpus", "4", "--period", "512",
                           "--period-range", "512", "--db", db, "--truth", truth,
                           "--timeout", "400", "--", PROGRAM, layout, ROUNDS],
                          capture_output=True, text=True, timeout=450)
    expect(done.returncode == 0, f"dcpi run -- false_sharing {layout}: {done.stderr[-600:]}")
    return done.stdout, truth_file.read(truth)


def work_range():
    """[start, end) of the threads' function `work`, from the program's symbols."""
    out = subprocess.run(["alpha-linux-gnu-nm", "-S", PROGRAM], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        words = line.split()
        if len(words) == 4 and words[3] == "work":
            return int(words[0], 16), int(words[0], 16) + int(words[1], 16)
    raise AssertionError("no symbol work in false_sharing")


with tempfile.TemporaryDirectory() as tmp:
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    start, end = work_range()
    runs = {}
    for layout in ("shared", "padded"):
        out, truth = on_ev5(tmp, layout)
        expect(oracle(layout) in out, f"{layout}: the same sum as under qemu-alpha ({out!r})")
        waits = sum(c for pc, cause, c, _ in truth.stalls if start <= pc < end and cause == "dcache")
        cycles = sum(c for pc, c in truth.cycles.items() if start <= pc < end)
        runs[layout] = (waits, cycles)
        print(f"{layout}: the loop's D-cache waits {waits} of its {cycles} cycles; "
              f"{truth.events.get('invalidated', 0)} lines invalidated in all")
    (shared_waits, shared_cycles), (padded_waits, padded_cycles) = runs["shared"], runs["padded"]
    expect(shared_waits > 100000 and shared_waits > 20 * padded_waits,
           "counters in one line: the loop waits for the line the other CPUs took")
    expect(shared_cycles > padded_cycles, "and takes more cycles than with them a line apart")
sys.exit(CHECKS.exit_code())
