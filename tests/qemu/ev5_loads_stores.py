#!/usr/bin/env python3
"""Counter 1 sampled (issue 26: the 21164's loads and stores, SEL1 0xB and
0xC) against the ev5 model's truth, on compress (1 CPU):

- the truth's `pcevent PC loads N` (`stores`) lines equal, per address space
  and PC, the executions (`insn PC COUNT`) of each instruction that
  alpha-linux-gnu-objdump calls a load (a store), in compress and in the
  kernel, and name no other PC. Not loads: `unop` and the other loads into
  $31/$f31, which the Alpha defines as no-ops or prefetches and QEMU does
  not perform. Stores: the store-conditionals (stl_c, stq_c) store only when
  they succeed, so they are printed, not compared;
- each event's `pcevent` lines sum to its `event` line;
- `dcpi run --events cycles,loads:u,dmiss:u` samples user-mode loads on
  counter 1 and D-cache misses on counter 2 at once, `--events
  cycles,stores:u` stores: `dcpi score --truth` places each event's samples
  in compress by the placement oracle within a distance ratio of 1.25 (the
  counter interrupts at the load or store itself, docs/ev5-machine.md
  "Event counters"), with at least 200 samples each; counting every mode
  (`cycles,loads,dmiss`) is printed: the handler's own loads are delivered
  on the instruction it interrupted (DCPI's high-IPL blind spot);
- `--events cycles,loads,stores` rotates both on counter 1 (mux variant):
  their ratios are printed, and `dcpi prof` shows a column per event,
  loads and stores included;
- the qemu machine refuses loads naming --machine ev5.

Usage: ev5_loads_stores.py BUILD_DIR [KEEP_DIR]
"""
import json
import os
import re
import subprocess
import sys

from support import truth_file
from support.common import Checks, dcpi_binary, in_work_dir

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
DCPI = dcpi_binary(BUILD)
OBJDUMP = "alpha-linux-gnu-objdump"
WORKLOAD = "compress"
RATIO_LIMIT = 1.25  # the placement oracle's bound (issue 25)
MIN_SAMPLES = 200
LOADS = {"ldq", "ldl", "ldbu", "ldwu", "ldt", "lds", "ldf", "ldg", "ldq_u", "ldl_l", "ldq_l"}
STORES = {"stq", "stl", "stb", "stw", "stt", "sts", "stf", "stg", "stq_u"}
CONDITIONAL_STORES = {"stl_c", "stq_c"}
ZERO_REGISTERS = {"zero", "$31", "$f31", "fzero", "$31,"}


def dcpi(*args, expect_fail=False):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=900)
    if (done.returncode != 0) != expect_fail:
        raise AssertionError(f"dcpi {' '.join(args)}: exit {done.returncode}: {done.stderr[-800:]}")
    return done


def classify(elf):
    """{pc: "loads" | "stores" | "conditional"} of an ELF's instructions, by
    objdump's mnemonic; loads into $31/$f31 (unop, prefetches) are none."""
    out = subprocess.run([OBJDUMP, "-d", elf], capture_output=True, text=True,
                         check=True).stdout
    kinds = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(?:[0-9a-f]{2} ){4}\t(\S+)\s*(\S*)", line)
        if not m:
            continue
        pc, mnemonic, operands = int(m.group(1), 16), m.group(2), m.group(3)
        target = operands.split(",")[0]
        if mnemonic in LOADS and target not in ZERO_REGISTERS:
            kinds[pc] = "loads"
        elif mnemonic in STORES:
            kinds[pc] = "stores"
        elif mnemonic in CONDITIONAL_STORES:
            kinds[pc] = "conditional"
    return kinds


def per_space(truth_path):
    """{space: ({pc: executions}, {event: {pc: count}})}, space "shared" for
    the kernel's and PALcode's lines, else (pid, generation)."""
    spaces, current = {}, "shared"
    for _, kind, fields, _ in truth_file.records(truth_path):
        if kind == "space":
            current = (int(fields[0]), int(fields[1]))
        elif kind == "insn":
            spaces.setdefault(current, ({}, {}))[0][int(fields[0], 16)] = int(fields[1])
        elif kind == "pcevent" and fields[1] in ("loads", "stores"):
            events = spaces.setdefault(current, ({}, {}))[1]
            events.setdefault(fields[1], {})[int(fields[0], 16)] = int(fields[2])
    return spaces


def compare(checks, label, executions, events, kinds, in_image):
    """Every executed load (store) of the image has its pcevent line with its
    executions; no other PC of the image has one."""
    for event in ("loads", "stores"):
        counted = {pc: n for pc, n in events.get(event, {}).items()
                   if in_image(pc) and kinds.get(pc) != "conditional"}
        want = {pc: n for pc, n in executions.items() if kinds.get(pc) == event}
        wrong = sorted((hex(pc), counted.get(pc), want.get(pc))
                       for pc in set(counted) | set(want) if counted.get(pc) != want.get(pc))
        checks.expect(want and not wrong,
                      f"{label}: {event} per PC = executions of objdump's {event}: {len(want)} "
                      f"PCs, {sum(want.values())} executions; wrong (pc, truth, executions): "
                      f"{wrong[:6]}")
    conditional = {pc: (n, events.get("stores", {}).get(pc, 0)) for pc, n in executions.items()
                   if kinds.get(pc) == "conditional"}
    if conditional:
        print(f"{label}: store-conditionals (executions, stores):",
              {hex(pc): v for pc, v in sorted(conditional.items())[:6]})


def check_truth(checks, truth_path):
    truth = truth_file.read(truth_path)
    for event in ("loads", "stores"):
        per_pc = sum(truth.pc_events.get(event, {}).values())
        checks.expect(per_pc > 0 and truth.events.get(event) == per_pc,
                      f"{event}: pcevent lines sum to {per_pc} = event line "
                      f"{truth.events.get(event)}")
    spaces = per_space(truth_path)
    workload = os.path.join(BUILD, "guest", "workloads", WORKLOAD)
    kinds = classify(workload)
    mine = [(m[0], m[1]) for m in truth.maps if os.path.basename(m[6]) == WORKLOAD]
    checks.expect(mine, f"the truth maps {WORKLOAD}'s address spaces: {mine}")
    for space in mine:
        load, size, link = next((m[2], m[3], m[4]) for m in truth.maps
                                if (m[0], m[1]) == space and os.path.basename(m[6]) == WORKLOAD)
        checks.expect(load == link, f"{WORKLOAD} runs at its link address ({load:#x})")
        executions, events = spaces.get(space, ({}, {}))
        compare(checks, f"{WORKLOAD} {space}", executions, events, kinds,
                lambda pc: load <= pc < load + size)
    kernel = classify(os.path.join(BUILD, "guest", "kernel", "kernel.elf"))
    executions, events = spaces.get("shared", ({}, {}))
    kernel_executions = {pc: n for pc, n in executions.items() if pc in kernel}
    compare(checks, "kernel", kernel_executions, events, kernel, lambda pc: pc in kernel)


def placement(db, truth_path, event):
    score = json.loads(dcpi("score", "--db", db, "--truth", truth_path, "--image", WORKLOAD,
                            "--json").stdout)
    p = score.get("event_placement", {}).get(event, {})
    print(f"{WORKLOAD} {event}: ratio {p.get('ratio')}, {p.get('samples')} samples, "
          f"{p.get('true_cycles')} events")
    return p


def check_placement(checks, db, truth_path, event):
    p = placement(db, truth_path, event)
    checks.expect(p.get("samples", 0) >= MIN_SAMPLES and 0 < p.get("ratio", 99) <= RATIO_LIMIT,
                  f"{WORKLOAD}: {event} samples placed by the oracle within {RATIO_LIMIT} "
                  f"(ratio {p.get('ratio')}, {p.get('samples')} samples)")


def run(tmp, label, events):
    db, truth_path = os.path.join(tmp, f"{label}.db"), os.path.join(tmp, f"{label}.truth")
    dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", WORKLOAD,
         "--events", events, "--truth", truth_path, "--db", db)
    return db, truth_path


def main(tmp):
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    checks = Checks()
    # Counters 1 and 2 at once (no rotation), then stores alone: placement
    # is bounded where no time multiplexing blurs compress's phases. In
    # user mode (the kill bits): counting every mode, the handler's own
    # loads after each dmiss interrupt overflow counter 1 at IPL 6 and are
    # delivered on the missing load it interrupted (DCPI's blind spot, as
    # ev5_pc_events shows for imiss): that run is printed (1.08-1.26 seen).
    db, truth_path = run(tmp, "loads", "cycles,loads,dmiss")
    check_truth(checks, truth_path)
    placement(db, truth_path, "loads")
    db, truth_path = run(tmp, "loads_user", "cycles,loads:u,dmiss:u")
    check_placement(checks, db, truth_path, "loads:u")
    placement(db, truth_path, "dmiss:u")
    db, truth_path = run(tmp, "stores", "cycles,stores:u")
    check_placement(checks, db, truth_path, "stores:u")
    # Both on counter 1, rotated by the mux variant: printed, not bounded.
    db, truth_path = run(tmp, "mux", "cycles,loads,stores")
    for event in ("loads", "stores"):
        placement(db, truth_path, event)
    prof = dcpi("prof", "--db", db).stdout
    header = next((line for line in prof.splitlines() if "loads" in line), "")
    checks.expect("loads" in header and "stores" in header and "cycles" in header,
                  f"dcpi prof has cycles, loads and stores columns: {header.strip()[:120]}")
    refused = dcpi("run", "--quiet", "--machine", "qemu", "--cpus", "1", "--workloads",
                   WORKLOAD, "--events", "cycles,loads", "--db", os.path.join(tmp, "q.db"),
                   expect_fail=True)
    checks.expect("--machine ev5" in refused.stderr,
                  f"qemu refuses loads naming --machine ev5: {refused.stderr.strip()[-200:]}")
    return checks.exit_code()


sys.exit(in_work_dir(main, KEEP))
