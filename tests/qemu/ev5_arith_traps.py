#!/usr/bin/env python3
"""Arithmetic traps in the middle of a block (issues 25 and 27).

tests/linux/arith_traps runs an `addl/v` that overflows TRAPS times, each
caught by a SIGFPE handler; the two `addq`'s after it, in the same
translation block, run once per iteration after the handler. QEMU raises
the trap from the instruction's helper (target/alpha/int_helper.c
helper_check_overflow -> arith_excp), in the middle of the block; the ev5
model learns which instruction raised it from our QEMU patch
(qemu/machine/patches/plugin-trap-insn.patch) and books none of the
instructions after it in that block execution.

Oracles and checks, on one run of each machine (1 CPU):
- the program's own count: the handler caught TRAPS traps and the two
  addq's added 2 x TRAPS (it runs likewise under qemu-alpha user mode);
- the ev5 truth counts the trapping instruction and every instruction after
  it up to the loop's branch exactly TRAPS times (they counted 2 x TRAPS
  when the model booked the whole block at each entry);
- every instruction of `main` has the same execution count in the ev5
  truth as in the `qemu` machine's (the exec-counts plugin counts each
  instruction as it runs);
- the truth's `pcevent PC trap N` is TRAPS at the addl/v, and elsewhere in
  main only at loads and stores (a page fault's memory-fault traps); the
  TRAPS transfers into PALcode's arithmetic-trap entry are booked from the
  addl/v, none from the loop's branch: the block was left at the addl/v;
- ProfileMe (one record per INTERVAL fetched instructions): every record of
  the addl/v has the trap bit and the retired bit (the trapping instruction
  wrote its result: the trap is taken after it, Alpha Architecture
  Handbook §4.7.7: an integer overflow stores the truncated result and
  signals the trap), records x S within 4 sigma of TRAPS.

Usage: ev5_arith_traps.py BUILD_DIR LINUX_PROGRAMS_DIR
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import Checks, dcpi_binary

TRAPS = 20000  # tests/linux/arith_traps.c
INTERVAL = 256
BLOCK_AFTER = 5  # addq, addq, subl, mov, bne: the block's rest after the addl/v
# PALcode's arithmetic-trap entry: QEMU's EXCP_ARITH offset from the PAL
# base, KSEG's start (palcode/pal.S pal_arithmetic).
ARITH_VECTOR = 0xfffffc0000000000 + 0x400


def run_machine(dcpi, machine, program, work, extra=()):
    truth = os.path.join(work, f"truth-{machine}")
    db = os.path.join(work, f"db-{machine}")
    run = subprocess.run([dcpi, "run", "--quiet", "--machine", machine, "--cpus", "1",
                          *extra, "--truth", truth, "--db", db, "--", program],
                         capture_output=True, text=True, timeout=900, check=True)
    return run.stdout, truth_file.read(truth), db


def mnemonic(program, pc):
    """The instruction at `pc` of the program, as objdump names it."""
    listing = subprocess.run(["alpha-linux-gnu-objdump", "-d", f"--start-address={pc:#x}",
                              f"--stop-address={pc + 4:#x}", program],
                             capture_output=True, text=True, check=True).stdout
    match = re.search(rf"^\s*{pc:x}:\s+(?:[0-9a-f]{{2}} ){{4}}\s*(\S+)", listing, re.M)
    return match.group(1) if match else "?"


def is_memory(program, pc):
    return re.match(r"(ld|st)[bwlqst]", mnemonic(program, pc)) is not None


def main_range(program):
    """[start, end) of `main` in the (non-PIE) program, from its symbols."""
    nm = subprocess.run(["alpha-linux-gnu-nm", "-S", program], capture_output=True, text=True,
                        check=True).stdout
    match = re.search(r"^([0-9a-f]+) ([0-9a-f]+) T main$", nm, re.M)
    start = int(match.group(1), 16)
    return start, start + int(match.group(2), 16)


def main():
    build, linux_dir = sys.argv[1], sys.argv[2]
    dcpi = dcpi_binary(build)
    program = os.path.join(linux_dir, "arith_traps")
    checks = Checks()
    with tempfile.TemporaryDirectory() as work:
        out, ev5, db = run_machine(dcpi, "ev5", program, work,
                                   ("--profileme-interval", str(INTERVAL)))
        match = re.search(r"caught (\d+) at 0x([0-9a-f]+); the two after it added (\d+)", out)
        checks.expect(match is not None and int(match.group(1)) == TRAPS and
                      int(match.group(3)) == 2 * TRAPS,
                      f"the program: {match and match.group(0)} (expected {TRAPS} traps, "
                      f"{2 * TRAPS} added)")
        if match is None:
            return checks.exit_code()
        site = int(match.group(2), 16)
        for k in range(BLOCK_AFTER + 1):
            pc = site + 4 * k
            checks.expect(ev5.instructions.get(pc, 0) == TRAPS,
                          f"ev5 truth: {pc:#x} (addl/v + {k}) ran "
                          f"{ev5.instructions.get(pc, 0)} times (exactly {TRAPS})")

        _, qemu, _ = run_machine(dcpi, "qemu", program, work)
        start, end = main_range(program)
        differ = [f"{pc:#x}: ev5 {ev5.instructions.get(pc, 0)}, qemu {qemu.instructions.get(pc, 0)}"
                  for pc in range(start, end, 4)
                  if ev5.instructions.get(pc, 0) != qemu.instructions.get(pc, 0)]
        checks.expect(not differ, f"main's counts, ev5 against the qemu machine: "
                      f"{len(differ)} differ {differ[:6]}")

        traps = ev5.pc_events.get("trap", {})
        checks.expect(traps.get(site, 0) == TRAPS,
                      f"the truth's traps at the addl/v: {traps.get(site, 0)} (exactly {TRAPS})")
        # Main's loads of `caught` take a page fault or two (the memory-fault
        # vector): traps too, but only at loads and stores.
        elsewhere = [f"{pc:#x} {mnemonic(program, pc)}" for pc in traps
                     if start <= pc < end and pc != site and not is_memory(program, pc)]
        checks.expect(not elsewhere, f"trap events elsewhere in main, not at an access: {elsewhere}")
        branch = site + 4 * BLOCK_AFTER
        into_arith = {src: n for (src, dst), n in ev5.edges.items() if dst == ARITH_VECTOR}
        checks.expect(into_arith.get(site, 0) == TRAPS and not into_arith.get(branch),
                      f"transfers into PALcode's arithmetic entry: {into_arith.get(site, 0)} from "
                      f"the addl/v (exactly {TRAPS}), {into_arith.get(branch, 0)} from the "
                      f"loop's branch {branch:#x} (none)")

        report = json.loads(subprocess.run(
            [dcpi, "profileme", "--db", db, "--image", "arith_traps", "--procedure", "main",
             "--json"], capture_output=True, text=True, timeout=300, check=True).stdout)
        s = report["interval"]
        rows = {int(r["address"], 16): r for r in report["rows"]}
        at_site = rows.get(site)
        checks.expect(at_site is not None and at_site["records"] >= 16,
                      f"records of the addl/v: {at_site and at_site['records']}")
        if at_site is None:
            return checks.exit_code()
        k = at_site["records"]
        trapped = at_site["events"]["trap"]
        checks.expect(trapped == k, f"{trapped} of its {k} records have the trap bit")
        checks.expect(at_site["retired"] == k,
                      f"{at_site['retired']} of its {k} records retired (it wrote its result)")
        sigma = math.sqrt(k) * s
        checks.expect(abs(trapped * s - TRAPS) <= 4 * sigma,
                      f"trap records x S = {trapped * s:.0f} against {TRAPS} (4 sigma "
                      f"{4 * sigma:.0f})")
        wrong = [f"{a:#x}" for a, r in rows.items()
                 if r["events"]["trap"] and a != site and not is_memory(program, a)]
        checks.expect(not wrong, f"trap records elsewhere in main, not at an access: {wrong}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
