#!/usr/bin/env python3
"""The 21164's PC mispredicts on the ev5 machine (issue 26: counter 2's SEL2
0x2, `pcmispredict`): the model's jump-target prediction (a 12-entry return
stack, JMP/JSR predicted from their hint, qemu/machine/plugins/ev5
jump_predictor.h) against its truth, through the whole pipeline:

- counted without multiplexing (`dcpi stat -e instructions,pcmispredict`,
  bytecode and compress, 1 and 4 CPUs), each process's own count equals the
  truth's `pcevent ... pcmispredict` lines of its spaces exactly;
- bytecode's `switch` dispatch is a `jmp (t0)` without a hint (GCC leaves
  it 0), so the 21164 predicts the next instruction and mispredicts every
  dispatch: bytecode's PC mispredicts are at least 99.9 % of the opcodes it
  reports executing (an interrupt between the jump and its target hides a
  few from the model), and the truth blames 5 cycles on that jump for each;
- every restart costs the penalty once: the truth's `mispredict` stall
  cycles are 5 x (branch mispredicts + PC mispredicts), exactly;
- sampled (`dcpi run --events cycles,pcmispredict`), the samples sit where
  the truth says they can land (`visible_pcmispredict`: ratio <= 1.25 or an
  ideal sampler's 95th percentile), and `dcpi calc` weighs them as the
  branch-mispredict candidate's evidence.

Usage: ev5_pc_mispredicts.py BUILD_DIR [KEEP_DIR]
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ev5_stat  # noqa: E402  (its helpers; its main runs only as a script)
from support import truth_file  # noqa: E402
from support.common import Checks, in_work_dir  # noqa: E402

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
PENALTY = 5  # the ev5 machine's mispredict and pc_mispredict (docs/ev5-machine.md)
BYTECODE = os.path.join(BUILD, "guest", "workloads", "bytecode")


def dispatch_jump():
    """The address of bytecode's one `jmp` in main (its switch's dispatch)."""
    text = subprocess.run(["alpha-linux-gnu-objdump", "-d", BYTECODE], capture_output=True,
                          text=True, check=True).stdout
    main = text[text.index("<main>:"):]
    main = main[:main.index("\n\n")]
    jumps = [int(line.split(":")[0], 16) for line in main.splitlines() if "\tjmp\t" in line]
    assert len(jumps) == 1, f"one jmp in bytecode's main: {jumps}"
    return jumps[0]


def exact_runs(checks, work):
    for cpus in (1, 4):
        label = f"pcmispredict-cpus{cpus}"
        db, truth_path = os.path.join(work, f"{label}.db"), os.path.join(work, f"{label}.truth")
        done = ev5_stat.dcpi("stat", "--machine", "ev5", "--cpus", str(cpus), "--db", db,
                             "--truth", truth_path, "-e", "instructions,pcmispredict", "--quiet",
                             "--json", "--workloads", "bytecode,compress")
        processes, truth = ev5_stat.counted(db), truth_file.read(truth_path)
        ev5_stat.check_exact(checks, label, processes, truth, ("pcmispredict",))
        ev5_stat.check_instructions(checks, label, processes, truth)
        opcodes = [int(n) for n in re.findall(r"(\d+) opcodes", done.stderr)]
        bytecode = [p["events"]["pcmispredict"][0] for p in processes.values()
                    if p["program"].endswith("bytecode")]
        checks.expect(len(opcodes) == 1 and len(bytecode) == 1 and
                      opcodes[0] <= bytecode[0] * 1.001 and bytecode[0] <= opcodes[0] * 1.001,
                      f"{label}: bytecode's PC mispredicts {bytecode} are its dispatched opcodes "
                      f"{opcodes} within 0.1 % (the unhinted jmp mispredicts each)")
        check_truth(checks, label, truth, opcodes[0] if opcodes else 0)


def check_truth(checks, label, truth, opcodes):
    restarts = truth.events.get("mispredict", 0) + truth.events.get("pc_mispredict", 0)
    cycles = sum(c for _, cause, c, _ in truth.stalls if cause == "mispredict")
    checks.expect(cycles == PENALTY * restarts and truth.events.get("pc_mispredict", 0) > 0,
                  f"{label}: the truth's mispredict stall cycles {cycles} = {PENALTY} x "
                  f"({truth.events.get('mispredict')} branch + "
                  f"{truth.events.get('pc_mispredict')} PC mispredicts)")
    checks.expect(truth.events.get("pcmispredict") == truth.events.get("pc_mispredict"),
                  f"{label}: the pcevent lines add up to the model's count "
                  f"{truth.events.get('pcmispredict')} = {truth.events.get('pc_mispredict')}")
    jump = dispatch_jump()
    blamed = sum(c for _, cause, c, culprit in truth.stalls
                 if cause == "mispredict" and culprit == jump)
    checks.expect(opcodes > 0 and abs(blamed - PENALTY * opcodes) <= PENALTY * opcodes * 0.001,
                  f"{label}: the dispatch jmp at {jump:x} is blamed for {blamed} cycles, "
                  f"{PENALTY} per opcode ({opcodes}) within 0.1 %")


def sampled_run(checks, work):
    db, _ = ev5_stat.check_sampled_placement(checks, work, "bytecode", "pcmispredict")
    calc = ev5_stat.dcpi("calc", "--db", db, "--image", "/bin/bytecode", "--procedure", "main")
    checks.expect(re.search(r"^events: pcmispredict: a sample every", calc.stdout, re.M)
                  and re.search(r"Samples pcmispredict ", calc.stdout),
                  "dcpi calc weighs the pcmispredict samples and shows their column")


def main():
    checks = Checks()

    def runs(work):
        exact_runs(checks, work)
        sampled_run(checks, work)

    in_work_dir(runs, KEEP)
    return checks.exit_code()


sys.exit(main())
