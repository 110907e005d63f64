#!/usr/bin/env python3
"""The ev5 machine on the copy workload (issue 14, docs/ev5-machine.md).

Boots the copy workload (DCPI Figure 2's copy loop) on 1 CPU under the
patched qemu-system-alpha with libdcpi_ev5.so, twice, pulls each profile
with `dcpi ingest` and reads the plugin's truth file (version 2). Checks:

- the copy loop's CPI in the truth is many times its best case (the static
  cycles alone): the model's caches and write buffer make it memory bound,
  as in Figure 2 (10.77 CPI against 0.62);
- its big stalls are on the stores, caused by the D-cache misses of the
  loads that feed them (Figure 2's `d`; the model's write buffer keeps up
  with this loop, it fills up when the kernel clears pages);
- the charges reached QEMU's clock: the run has exact exits, and the
  samples on the loop follow the truth's cycles per instruction (each
  instruction's share of the loop's samples within 4 sigma plus 2 points
  of its share of the loop's cycles);
- an out-of-range plugin option is refused with a one-line error;
- two identical 1-CPU runs write identical truth for user code (the kernel
  idles on after DCPI-DONE until the test stops QEMU, at a host-timed moment).

Usage: ev5_truth.py BUILD_DIR PLUGIN_SO PATCHED_QEMU [KEEP_DIR]
"""
import math
import os
import subprocess
import sys

from support import qemu_run
from support.calc_guest import Guest, work_files
from support.common import Checks, symbol_range

from support import truth_file

BUILD, PLUGIN, QEMU = sys.argv[1], sys.argv[2], sys.argv[3]
KEEP = sys.argv[4] if len(sys.argv) > 4 else None
GUEST = Guest(BUILD)
COPY_ELF = os.path.join(GUEST.guest, "workloads", "copy")
CHECKS = Checks()
expect = CHECKS.expect


def user_lines(path):
    """The truth's lines about user code (PCs below KSEG). The kernel's go on
    after DCPI-DONE until QEMU is stopped, a host-timed moment."""
    return [line for _, kind, fields, line in truth_file.records(path)
            if kind in ("insn", "cycles", "stall", "edge") and
            int(fields[0], 16) < 0xfffffc0000000000]


def loop_samples(db):
    """{pc: samples} of copy_loop from dcpi calc's report."""
    import json
    report = json.loads(GUEST.dcpi("calc", "--db", db, "--image", COPY_ELF, "--procedure",
                                   "copy_loop", "--json"))
    return {int(i["address"], 16) if isinstance(i["address"], str) else i["address"]:
            i["samples"] for b in report["blocks"] for i in b["instructions"]}


def check_loop(truth, start, end):
    pcs = [pc for pc in truth.instructions if start <= pc < end]
    executions = sum(truth.instructions[pc] for pc in pcs)
    cycles = sum(truth.cycles.get(pc, 0) for pc in pcs)
    dynamic = {}
    for pc, cause, n, culprit in truth.stalls:
        if start <= pc < end and cause not in ("slot", "dep"):
            dynamic[(pc, cause)] = dynamic.get((pc, cause), 0) + n
    static = cycles - sum(dynamic.values())
    cpi, best = cycles / executions, static / executions
    print(f"copy_loop: {executions} instructions, {cycles} cycles, CPI {cpi:.2f}, "
          f"static {best:.2f}")
    for (pc, cause), n in sorted(dynamic.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {pc:x} {cause:10} {n / truth.instructions[pc]:8.2f} cycles per execution")
    expect(cpi >= 4 * best, f"the loop's CPI {cpi:.2f} is at least 4x its static {best:.2f}")
    stores = {pc for pc, cause, n, culprit in truth.stalls
              if start <= pc < end and cause == "dcache" and culprit is not None
              and start <= culprit < end}
    on_stores = sum(n for (pc, cause), n in dynamic.items() if pc in stores)
    expect(on_stores >= 0.6 * sum(dynamic.values()),
           f"{100 * on_stores / max(1, sum(dynamic.values())):.0f}% of the loop's dynamic "
           f"stalls are at the instructions waiting for its loads (the stores)")
    causes = {cause for (pc, cause) in dynamic if pc in stores}
    expect("dcache" in causes, "D-cache misses of the loop's loads stall the stores")
    return pcs, cycles


def check_samples(truth, samples, pcs, cycles):
    total = sum(samples.get(pc, 0) for pc in pcs)
    expect(total >= 1000, f"{total} samples on the loop")
    worst = 0.0
    for pc in sorted(pcs):
        share = truth.cycles.get(pc, 0) / cycles
        got = samples.get(pc, 0) / max(1, total)
        sigma = math.sqrt(max(share * (1 - share), 1e-9) / max(1, total))
        worst = max(worst, abs(got - share) - 4 * sigma)
        print(f"  {pc:x} samples {100 * got:5.1f}%  truth cycles {100 * share:5.1f}%")
    expect(worst <= 0.02, "each instruction's share of the samples is its share of the "
                          f"truth's cycles (worst excess {100 * worst:.1f} points over 4 sigma)")


def run_once(tmp_db, truth_path):
    console, _ = GUEST.profile_with_exact_counts(PLUGIN, "init=/bin/init script=/etc/copy.mix",
                                                 tmp_db, truth_path)
    expect("checksum copy 0xcb24511ba819bfb9" in console, "copy printed its checksum")
    expect(os.path.isfile(truth_path), "the plugin wrote its truth file at exit")
    return console


def check_bad_option():
    command = qemu_run.qemu_command(GUEST.palcode, GUEST.kernel, 1, "", initrd=GUEST.initrd,
                                    plugin=f"file={PLUGIN},memory_latency=2")
    done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    expect(done.returncode != 0 and
           "ev5: memory_latency=2 is not an integer in [3, 100000]" in done.stderr,
           f"an out-of-range option stops QEMU with one line (exit {done.returncode}: "
           f"{done.stderr.strip()[:200]})")


def main():
    qemu_run.QEMU_OVERRIDE = QEMU
    check_bad_option()
    start, end = symbol_range(COPY_ELF, "copy_loop")
    with work_files(KEEP) as (db, truth_path):
        with work_files(os.path.join(KEEP, "second") if KEEP else None) as (db2, truth_path2):
            run_once(db, truth_path)
            truth = truth_file.read(truth_path)
            expect(truth.version >= 2 and truth.machine == "ev5",
                   f"a timed ev5 truth file (version {truth.version}, {truth.machine})")
            expect(truth.version < 5 or any(truth.spaces.values()),
                   "version 5 keeps the user lines per address space")
            events = truth.events
            print("events:", events)
            expect(events.get("exact_exits", 0) > 0, "charges ran into timer deadlines (exact exits)")
            expect(events["cycles"] == sum(truth.cycles.values()),
                   "the cycles lines add up to the cycles event")
            expect(events.get("wbuf_full", 0) > 0 and
                   any(cause == "wbuf" for pc, cause, n, culprit in truth.stalls),
                   "stores wait for a full write buffer (the kernel clearing pages)")
            pcs, cycles = check_loop(truth, start, end)
            check_samples(truth, loop_samples(db), pcs, cycles)
            run_once(db2, truth_path2)
            first, second = user_lines(truth_path), user_lines(truth_path2)
            expect(len(first) > 100 and first == second,
                   f"two identical 1-CPU runs give identical truth for user code "
                   f"({len(first)} lines)")
    if CHECKS.failures:
        print(f"{len(CHECKS.failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
