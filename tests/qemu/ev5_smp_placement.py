#!/usr/bin/env python3
"""Samples where the truth puts the cycles on several CPUs (issue 25: the
placement oracle's ratio <= 1.25 on 1 and 4 CPUs), on the ev5 machine:
parallel4's four children busy on 4 CPUs at period 8192, the kernel's idle
CPUs beside them.

Under -icount QEMU runs the vCPUs round-robin, and by itself gives each one
a turn of the time to the next timer deadline divided by the number of
vCPUs, so a round ends where the next sampling overflow falls: the CPU it
belongs to is then always waiting, and takes its sample where its turn
ended, a point the deadline chose rather than the time the CPU spent
there. Our QEMU patch draws each turn independently of the deadlines
(`rr_slice`, docs/ev5-machine.md "SMP: one virtual clock"). Checked:

- with the default turns, `dcpi score --truth` places parallel4's samples
  within a distance ratio of 2.0 of sampling noise, and no instruction with
  >= 200 expected samples is beyond 5 sigma (QEMU's own turns gave 3.0-3.9x
  and 4-7 sigma outliers on the loop's one-cycle instructions; the default
  turns 0.90, 1.00, 1.00, 1.31 and 1.68 in five runs: 4-CPU runs are not
  repeatable, and pure noise is above 1.4x one time in twenty);
- the kernel's samples (the idle CPUs' sleeps, taken at IPL 0 on the
  secondaries and after a swpipl on the boot CPU) within 3.0x: the idle
  split booked wrong gave 120-335x; 1.7-2.0x in eight runs (the daemon's
  flush loop 6-8 sigma short) until a vCPU kicked out by its own counter's
  re-arm kept the rest of its turn: 1.21x;
- QEMU's own turns (`--model rr_slice=0`) are run and printed, not judged.

Usage: ev5_smp_placement.py BUILD_DIR [KEEP_DIR]
"""
import json
import os
import sys

from support.common import Checks, in_work_dir, run_dcpi

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
PROGRAM_RATIO = 2.0
KERNEL_RATIO = 3.0
MAX_SIGMA = 5.0


def dcpi(*args):
    return run_dcpi(BUILD, *args)


def placement(db, truth, image):
    done = dcpi("score", "--db", db, "--truth", truth, "--image", image, "--json")
    return json.loads(done)["placement"]


def run(work, name, model):
    db, truth = os.path.join(work, f"{name}.db"), os.path.join(work, f"{name}.truth")
    if not os.path.exists(truth):
        dcpi("run", "--machine", "ev5", "--cpus", "4", "--workloads", "parallel4", "--period",
             "8192", *model, "--db", db, "--truth", truth)
    program = placement(db, truth, os.path.join(BUILD, "guest", "workloads", "parallel4"))
    kernel = placement(db, truth, "kernel.elf")
    for image, p in (("parallel4", program), ("kernel", kernel)):
        worst = max((abs(o["z"]) for o in p["outliers"]), default=0.0)
        print(f"{name}: {image} placement {p['ratio']:.2f} x noise over {p['samples']:.0f} "
              f"samples, {p['outliers_total']} beyond 4 sigma (worst {worst:.1f})", flush=True)
    return program, kernel


def main(work):
    checks = Checks()
    program, kernel = run(work, "random_turns", [])
    checks.expect(program["samples"] > 100000, f"parallel4 has {program['samples']:.0f} samples")
    checks.expect(program["ratio"] <= PROGRAM_RATIO,
                  f"parallel4's placement {program['ratio']:.2f} <= {PROGRAM_RATIO} x noise")
    beyond = [o for o in program["outliers"] if abs(o["z"]) > MAX_SIGMA]
    checks.expect(not beyond, f"no parallel4 instruction beyond {MAX_SIGMA} sigma: {beyond}")
    checks.expect(kernel["ratio"] <= KERNEL_RATIO,
                  f"the kernel's placement {kernel['ratio']:.2f} <= {KERNEL_RATIO} x noise")
    run(work, "qemu_turns", ["--model", "rr_slice=0"])
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(in_work_dir(main, KEEP))
