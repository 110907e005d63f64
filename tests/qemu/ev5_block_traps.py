#!/usr/bin/env python3
"""Traps in the middle of a block (issues 25 and 27): arithmetic traps and
memory faults.

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

tests/linux/stack_faults stores to 512 pages of a stack area of which the
kernel maps only the top at spawn: the store faults at its access on each
new page (QEMU raises the fault in the middle of the block), PALcode's
memory-fault entry grows the stack and returns to the store, which runs
again. Checks: the program's count (2 per page added after the store);
the `qemu` machine counts the store PAGES + F times (F faults: exec_counts
counts each attempt), F at least the pages below the 256 KB mapped at
spawn; every instruction of the program's own functions has the same count
in the ev5 truth as in the qemu machine's (the instructions after the store
PAGES times each); the ev5 truth's traps at the store are F plus the
model's DTB misses there.

Usage: ev5_block_traps.py BUILD_DIR LINUX_PROGRAMS_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import Checks, dcpi_binary

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ev5_profileme_traps import check_trap_records  # noqa: E402  (beside this test)

TRAPS = 20000  # tests/linux/arith_traps.c
INTERVAL = 256
BLOCK_AFTER = 5  # addq, addq, subl, mov, bne: the block's rest after the addl/v
# PALcode's arithmetic-trap entry: QEMU's EXCP_ARITH offset from the PAL
# base, KSEG's start (palcode/pal.S pal_arithmetic).
ARITH_VECTOR = 0xfffffc0000000000 + 0x400


def run_machine(dcpi, machine, program, work, extra=()):
    os.makedirs(work, exist_ok=True)
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


def functions(program):
    """{name: (start, end)} of the (non-PIE) program's own text symbols."""
    nm = subprocess.run(["alpha-linux-gnu-nm", "-S", program], capture_output=True, text=True,
                        check=True).stdout
    return {name: (int(start, 16), int(start, 16) + int(size, 16))
            for start, size, name in re.findall(r"^([0-9a-f]+) ([0-9a-f]+) [Tt] (\S+)$", nm, re.M)}


def main_range(program):
    """[start, end) of `main`."""
    return functions(program)["main"]


def own_space(truth, name):
    """The address space the program `name` ran in, (pid, generation): its
    user PCs apart from other processes' at the same addresses (init's)."""
    spaces = {(pid, generation) for pid, generation, *_, path in truth.maps
              if os.path.basename(path) == name}
    return spaces.pop() if len(spaces) == 1 else None


def differing(ev5, qemu, ranges):
    return [f"{pc:#x}: ev5 {ev5.get(pc, 0)}, qemu {qemu.get(pc, 0)}"
            for start, end in ranges for pc in range(start, end, 4)
            if ev5.get(pc, 0) != qemu.get(pc, 0)]


STACK_PAGES = 512  # tests/linux/stack_faults.c
PAGE_BYTES = 8192
MAPPED_AT_SPAWN = 256 * 1024  # kernel/process.h kUserStackBytes


def check_stack_faults(dcpi, linux_dir, work, checks):
    program = os.path.join(linux_dir, "stack_faults")
    out, ev5, _ = run_machine(dcpi, "ev5", program, os.path.join(work, "stack-ev5"),
                              ("--profileme-interval", str(INTERVAL)))
    match = re.search(r"stored at 0x([0-9a-f]+); the two after it added (\d+)", out)
    checks.expect(match is not None and int(match.group(2)) == 2 * STACK_PAGES,
                  f"stack_faults: {match and match.group(0)} (expected {2 * STACK_PAGES} added)")
    if match is None:
        return
    site = int(match.group(1), 16)
    _, qemu_truth, _ = run_machine(dcpi, "qemu", program, os.path.join(work, "stack-qemu"))
    ev5_space, qemu_space = own_space(ev5, "stack_faults"), own_space(qemu_truth, "stack_faults")
    checks.expect(ev5_space is not None and qemu_space is not None,
                  f"stack_faults' address space: ev5 {ev5_space}, qemu {qemu_space}")
    if ev5_space is None or qemu_space is None:
        return
    own, qemu = ev5.spaces[ev5_space], qemu_truth.spaces[qemu_space]
    faults = qemu.get(site, 0) - STACK_PAGES
    least = STACK_PAGES - MAPPED_AT_SPAWN // PAGE_BYTES
    checks.expect(faults >= least, f"the store faulted {faults} times on the qemu machine "
                  f"(at least {least}: the pages below the stack mapped at spawn)")
    ranges = functions(program).values()
    differ = differing(own, qemu, ranges)
    checks.expect(not differ, f"stack_faults' counts, ev5 against the qemu machine: "
                  f"{len(differ)} differ {differ[:6]}")
    for k in (1, 2):
        pc = site + 4 * k
        checks.expect(own.get(pc, 0) == STACK_PAGES,
                      f"ev5 truth: {pc:#x} (the store + {k}) ran {own.get(pc, 0)} "
                      f"times (exactly {STACK_PAGES})")
    # A trap is a fault or the model's DTB miss at the store (the 21164's
    # DTBMISS trap, vcpu_model.h count()).
    events = ev5.space_pc_events.get(ev5_space, {})
    traps = events.get("trap", {}).get(site, 0)
    dtb_misses = events.get("dtbmiss", {}).get(site, 0)
    checks.expect(traps == faults + dtb_misses,
                  f"the ev5 truth's traps at the store: {traps} (the faults {faults} + its DTB "
                  f"misses {dtb_misses})")


def main():
    build, linux_dir = sys.argv[1], sys.argv[2]
    dcpi = dcpi_binary(build)
    program = os.path.join(linux_dir, "arith_traps")
    checks = Checks()
    with tempfile.TemporaryDirectory() as work:
        check_stack_faults(dcpi, linux_dir, work, checks)
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
        _, qemu_truth, _ = run_machine(dcpi, "qemu", program, work)
        ev5_space, qemu_space = own_space(ev5, "arith_traps"), own_space(qemu_truth, "arith_traps")
        checks.expect(ev5_space is not None and qemu_space is not None,
                      f"arith_traps' address space: ev5 {ev5_space}, qemu {qemu_space}")
        if ev5_space is None or qemu_space is None:
            return checks.exit_code()
        own, qemu = ev5.spaces[ev5_space], qemu_truth.spaces[qemu_space]
        for k in range(BLOCK_AFTER + 1):
            pc = site + 4 * k
            checks.expect(own.get(pc, 0) == TRAPS,
                          f"ev5 truth: {pc:#x} (addl/v + {k}) ran {own.get(pc, 0)} times "
                          f"(exactly {TRAPS})")
        start, end = main_range(program)
        differ = differing(own, qemu, [(start, end)])
        checks.expect(not differ, f"main's counts, ev5 against the qemu machine: "
                      f"{len(differ)} differ {differ[:6]}")

        traps = ev5.space_pc_events.get(ev5_space, {}).get("trap", {})
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

        rows, at_site = check_trap_records(checks, build, db, "arith_traps", site, TRAPS,
                                           "the addl/v")
        if at_site is None:
            return checks.exit_code()
        k = at_site["records"]
        checks.expect(at_site["retired"] == k,
                      f"{at_site['retired']} of its {k} records retired (it wrote its result)")
        wrong = [f"{a:#x}" for a, r in rows.items()
                 if r["events"]["trap"] and a != site and not is_memory(program, a)]
        checks.expect(not wrong, f"trap records elsewhere in main, not at an access: {wrong}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
