#!/usr/bin/env python3
"""Ground truth from QEMU (DESIGN §7): boots the kernel's spread self-test
with the exec_counts TCG plugin and checks the exact counts against what
the code must do, then checks that the plugin does not change guest time.

spread_loop(100000) runs its 8-instruction body 100000 times per call, so
every body instruction executes 100000·calls times, the `ret` after it
`calls` times, and the closing bne's transfers (taken back to the body, to
an interrupt entry, or falling through to the ret) add up to its count.

Usage: plugin_counts.py BUILD_GUEST_DIR PLUGIN_SO
"""
import os
import subprocess
import sys
import tempfile

from support import qemu_run  # QEMU argv from dcpi run --print-qemu-command
from support.common import GuestFiles, expect, symbols

from support import truth_file

GUEST, PLUGIN = sys.argv[1], sys.argv[2]
qemu_run.use_build(GUEST)
FILES = GuestFiles(GUEST)
PALCODE, KERNEL = FILES.palcode, FILES.kernel
ITERATIONS_PER_CALL = 100000


def run(cpus, append, counts_path=None):
    plugin = f"file={PLUGIN},out={counts_path}" if counts_path else None
    command = qemu_run.qemu_command(PALCODE, KERNEL, cpus, append, plugin=plugin)
    done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          errors="replace", timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"QEMU failed: {done.stderr.strip()[-300:]}")
    return done.stdout.replace("\r\n", "\n")


def read_counts(path):
    truth = truth_file.read(path)
    expect(truth.version == 1, "the counts file has its header (version 1)")
    return truth.instructions, truth.edges


def check_spread_counts():
    sym = symbols(KERNEL)
    body, end = sym["spread_loop_body"], sym["spread_loop_end"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "counts.txt")
        text = run(1, "test=spread samples=300", path)
        expect("DCPI-TEST done" in text, "the spread self-test ran to completion")
        instructions, edges = read_counts(path)
    body_pcs = list(range(body, end, 4))
    expect(len(body_pcs) == 8, "spread_loop's body is 8 instructions")
    calls = instructions.get(end, 0)
    expect(calls > 0, f"spread_loop returned {calls} times")
    for pc in body_pcs:
        expect(instructions.get(pc) == ITERATIONS_PER_CALL * calls,
               f"body instruction {pc:#x} ran exactly {ITERATIONS_PER_CALL} × {calls} times")
    bne = body_pcs[-1]
    away = {to: n for (src, to), n in edges.items() if src == bne}
    back = away.get(body, 0)
    interrupted = sum(n for to, n in away.items() if to != body)
    fall_through = instructions[bne] - back - interrupted  # sequential flow is implicit
    expect(calls - interrupted <= fall_through <= calls,
           f"the bne fell through {fall_through} times: once per call ({calls}) "
           f"unless an interrupt came between it and the ret")
    expect(back >= (ITERATIONS_PER_CALL - 1) * calls - interrupted,
           f"the bne branched back {back} times: 99999 per call less interrupted ones")
    pal = symbols(PALCODE).values()
    expect(all(min(pal) <= to <= max(pal) + 0x2000 for to in away if to != body),
           "every other transfer out of the bne enters PALcode (an interrupt)")
    expect(0 < interrupted <= 300 + 10, f"interrupts after the bne ({interrupted}) are at most the samples")
    expect(not any((src, to) for (src, to) in edges if body <= src < bne and to == src + 4),
           "no sequential flow is recorded as an edge")


def check_timing_unchanged():
    # The period self-test prints periods observed through the guest's cycle
    # counter (RPCC); under icount they must be identical with the plugin.
    with tempfile.TemporaryDirectory() as tmp:
        without = run(2, "test=period samples=500")
        with_plugin = run(2, "test=period samples=500", os.path.join(tmp, "counts.txt"))
    observed = [line for line in without.splitlines() if "observed=" in line]
    expect(len(observed) >= 500, f"{len(observed)} RPCC-measured periods traced")
    expect(without == with_plugin,
           "the guest console (RPCC-measured periods included) is identical with the plugin")


check_spread_counts()
check_timing_unchanged()
