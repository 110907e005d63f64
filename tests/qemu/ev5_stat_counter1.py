#!/usr/bin/env python3
"""dcpi stat on the 21164's counter 1 (issue 26: loads and stores, SEL1 0xB
and 0xC) against the ev5 model's truth (the plugin's `pcevent PC loads N`
lines per address space; the counts are the guest kernel's, read from
counter 1 with wrperfmon 5 at every context switch). ev5_stat.py's checks
for counter 2, applied to counter 1:

- without multiplexing, counters 1 and 2 at once (-e instructions,loads,
  dmiss, and -e stores): each process's own loads, stores, dmiss and
  instructions equal the truth of its spaces exactly, on 1 and 4 CPUs
  (copy, compress, and manyproc's forked children); IRIX's rule holds for
  them; the report's derived figure dmiss per 1000 loads is dmiss / loads;
- multiplexed on counter 1 (-e loads,stores,dmiss): loads and stores share
  counter 1's time (their shares add up to 1 per process) while dmiss, alone
  on counter 2, is counted all the time and exactly; on copy (a steady
  loop) each projection is within 1 % of the truth;
- the qemu machine refuses loads naming --machine ev5.

Usage: ev5_stat_counter1.py BUILD_DIR [KEEP_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ev5_stat  # noqa: E402  (its helpers; its main runs only as a script)
from support.common import Checks, in_work_dir  # noqa: E402

KEEP = sys.argv[2] if len(sys.argv) > 2 else None
WORKLOADS = ("--workloads", "copy,compress,manyproc")


def check_per_1000_loads(checks, label, report):
    for row in report["processes"]:
        by_name = {e["name"]: e for e in row["events"]}
        loads, dmiss = by_name.get("loads"), by_name.get("dmiss")
        if not loads or not dmiss or not loads["projected"]:
            continue
        want = 1000.0 * dmiss["projected"] / loads["projected"]
        checks.expect(abs(dmiss.get("per_1000_loads", -1) - want) <= 1e-6 * max(want, 1),
                      f"{label}: {row['program']} dmiss per 1000 loads "
                      f"{dmiss.get('per_1000_loads')} = {want:.6f}")


def exact_runs(checks, work):
    for cpus in (1, 4):
        for events in (("loads", "dmiss"), ("stores",)):
            label = f"{'-'.join(events)}-cpus{cpus}"
            processes, truth, report = ev5_stat.run_stat(
                work, label, cpus, ",".join(("instructions",) + events), *WORKLOADS)
            ev5_stat.check_exact(checks, label, processes, truth, events)
            ev5_stat.check_instructions(checks, label, processes, truth)
            ev5_stat.check_irix(checks, label, processes)
            for pid, p in processes.items():
                for name in events:
                    checks.expect(p["events"][name][1] == p["cycles"],
                                  f"{label}: pid {pid} {name} counted all its time (no mux)")
            if "loads" in events:
                check_per_1000_loads(checks, label, report)


def mux_run(checks, work):
    processes, truth, report = ev5_stat.run_stat(work, "mux1", 1, "loads,stores,dmiss",
                                                 "--workloads", "copy,compress")
    ev5_stat.check_exact(checks, "mux1", processes, truth, ("dmiss",))
    expected = ev5_stat.truth_per_process(truth)
    for pid, p in processes.items():
        shares = (p["events"]["loads"][1] + p["events"]["stores"][1]) / max(p["cycles"], 1)
        checks.expect(abs(shares - 1) < 1e-9,
                      f"mux1: pid {pid} ({p['program']}) loads and stores shares add up to "
                      f"{shares:.9f}")
        checks.expect(p["events"]["dmiss"][1] == p["cycles"],
                      f"mux1: pid {pid} dmiss has counter 2 all the time")
    ev5_stat.check_projections(checks, "mux1", report, expected, ("loads", "stores"))
    check_per_1000_loads(checks, "mux1", report)


def main():
    checks = Checks()

    def runs(work):
        exact_runs(checks, work)
        mux_run(checks, work)

    in_work_dir(runs, KEEP)
    refused = ev5_stat.dcpi("stat", "--machine", "qemu", "-e", "loads", "--workloads", "copy",
                            expect_fail=True)
    checks.expect("--machine ev5" in refused.stderr,
                  f"qemu refuses loads naming --machine ev5: {refused.stderr.strip()[-200:]}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
