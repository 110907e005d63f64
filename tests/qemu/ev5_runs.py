#!/usr/bin/env python3
"""`dcpi run --machine ev5` end to end (issue 14):
- two identical 1-CPU runs of the copy workload give identical profiles
  (icount and the model are deterministic; the GDB pulls stop the clock);
- 4 CPUs run the parallel4 mix on ev5 (the QEMU patch gives each vCPU its own
  plugin index), and the database records the machine with the epoch;
- on ev5 the guest's clock counts modelled cycles: the same workload takes
  several times more cycles than on qemu (one cycle per instruction);
- on 4 CPUs the model keeps the caches coherent (the kernel's data is
  shared: stores invalidate other CPUs' lines, fills find lines another CPU
  wrote), and the truth of a sampling run has visible cycles, none in PAL.

Usage: ev5_runs.py BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import dcpi_binary, expect

BUILD = sys.argv[1]
DCPI = dcpi_binary(BUILD)


def dcpi(*args):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)}: exit {done.returncode}: {done.stderr[-500:]}")
    return done.stdout


def run(db, machine, *args):
    done = subprocess.run([DCPI, "run", "--quiet", "--machine", machine, "--db", db, *args],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"dcpi run: exit {done.returncode}: {done.stderr[-500:]}")
    cycles = re.search(r"in (\d+) workload cycles", done.stderr)  # the summary's stream
    return int(cycles.group(1)) if cycles else None


with tempfile.TemporaryDirectory() as tmp:
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    first, second, fast = (os.path.join(tmp, n) for n in ("a.db", "b.db", "q.db"))
    cycles_ev5 = run(first, "ev5", "--cpus", "1", "--workloads", "copy")
    run(second, "ev5", "--cpus", "1", "--workloads", "copy")
    profiles = [dcpi("prof", "--db", db, "--limit", "30") for db in (first, second)]
    expect(profiles[0] == profiles[1] and "copy_loop" in profiles[0],
           "two identical 1-CPU ev5 runs give identical profiles")
    cycles_qemu = run(fast, "qemu", "--cpus", "1", "--workloads", "copy")
    expect(cycles_ev5 and cycles_qemu and cycles_ev5 > 2 * cycles_qemu,
           f"copy takes {cycles_ev5} modelled 21164 cycles on ev5, {cycles_qemu} on qemu")
    smp = os.path.join(tmp, "smp.db")
    truth_path = os.path.join(tmp, "smp.truth")
    run(smp, "ev5", "--cpus", "4", "--mix", "parallel4", "--truth", truth_path)
    truth = truth_file.read(truth_path)
    expect(truth.events.get("invalidated", 0) > 0 and truth.events.get("interventions", 0) > 0,
           f"4 CPUs: {truth.events.get('invalidated')} lines invalidated by other CPUs' "
           f"stores, {truth.events.get('interventions')} interventions")
    # Visible: the CPUs' own cycles (sleeps included) and their waits for
    # the round-robin turn, which their counters count too.
    visible, waited = truth.events.get("visible_cycles", 0), truth.events.get("waited_cycles", 0)
    expect(truth.visible and waited > 0 and visible <= truth.events["cycles"] + waited,
           f"the truth has the cycles a sample can land on ({visible}), no more than all cycles "
           f"({truth.events['cycles']}) and the waits for the turn ({waited})")
    pal_visible = [pc for pc in truth.visible if 0xfffffc0000000000 <= pc < 0xfffffc0000100000]
    expect(not pal_visible, f"no PALcode cycle is visible ({len(pal_visible)} PAL PCs are)")
    show = dcpi("db", "show", "--db", smp)
    expect("machine ev5" in show, "the database records the ev5 machine with the epoch")
    cpus = dcpi("prof", "--db", smp, "--by", "cpu")
    sampled = [c for c in range(4) if re.search(rf"^\s*[1-9]\d*\s+\S+\s+\S+\s+{c}\s*$", cpus, re.M)]
    expect(sampled == [0, 1, 2, 3], f"all 4 CPUs were sampled on ev5 (CPUs with samples: {sampled})")
