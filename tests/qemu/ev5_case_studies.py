#!/usr/bin/env python3
"""The R10000 paper's two case studies on the ev5 machine (issue 26;
docs/case-studies.md): workloads/tlbwalk (a loop nest whose DTB misses
dominate until its loops are interchanged) and workloads/stride (a
power-of-two row pitch whose D-cache conflict misses go when the rows are
padded by one line).

Each program runs before and after under `dcpi run --machine ev5 --truth`;
the truth's events and cycles in the program's own address space (version 6
`pcevent` lines, `cycles` lines) are compared:

- both variants print the same checksum (the change keeps the results);
- tlbwalk: DTB misses fall at least 20-fold and the program's cycles at
  least 2-fold;
- stride: D-cache misses fall at least 3-fold and the cycles at least
  1.5-fold.

Event counts per process come from the model's truth, not from `dcpi stat`
(counting mode is not built yet: docs/case-studies.md says what it needs).

Usage: ev5_case_studies.py BUILD_DIR [KEEP_DIR]
"""
import os
import re
import subprocess
import sys

from support import truth_file
from support.common import Checks, dcpi_binary, in_work_dir

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
DCPI = dcpi_binary(BUILD)
WORKLOADS = os.path.join(BUILD, "guest", "workloads")
# (program, event, least event ratio, least cycle ratio before/after)
CASES = (("tlbwalk", "dtbmiss", 20, 2), ("stride", "dmiss", 3, 1.5))


def run(tmp, program, variant):
    """(checksum line, {event: count}, cycles, {stall cause: cycles}) of the
    program's own space."""
    truth_path = os.path.join(tmp, f"{program}-{variant}.truth")
    done = subprocess.run([DCPI, "run", "--machine", "ev5", "--cpus", "1", "--truth", truth_path,
                           "--db", os.path.join(tmp, f"{program}-{variant}.db"), "--",
                           os.path.join(WORKLOADS, program), variant],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise AssertionError(f"dcpi run -- {program} {variant}: exit {done.returncode}: "
                             f"{done.stderr[-800:]}")
    checksum = re.search(rf"^checksum {program} 0x[0-9a-f]{{16}}$", done.stdout, re.M)
    truth = truth_file.read(truth_path)
    spaces = {(pid, generation) for pid, generation, *_, path in truth.maps
              if os.path.basename(path) == program}
    events, cycles, stalls, current = {}, 0, {}, None
    for _, kind, fields, _ in truth_file.records(truth_path):
        if kind == "space":
            current = (int(fields[0]), int(fields[1]))
        elif current in spaces and kind == "pcevent":
            events[fields[1]] = events.get(fields[1], 0) + int(fields[2])
        elif current in spaces and kind == "cycles":
            cycles += int(fields[1])
        elif current in spaces and kind == "stall":
            stalls[fields[1]] = stalls.get(fields[1], 0) + int(fields[2])
    return checksum.group(0) if checksum else None, events, cycles, stalls


def main(tmp):
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    checks = Checks()
    print(f"{'program':9} {'variant':7} {'cycles':>12} {'dtbmiss':>9} {'dmiss':>9} "
          f"{'imiss':>7} {'branchmp':>8} {'dtb stall':>11} {'dcache stall':>12}")
    for program, event, least_events, least_cycles in CASES:
        results = {v: run(tmp, program, v) for v in ("before", "after")}
        for variant, (_, events, cycles, stalls) in results.items():
            print(f"{program:9} {variant:7} {cycles:12} {events.get('dtbmiss', 0):9} "
                  f"{events.get('dmiss', 0):9} {events.get('imiss', 0):7} "
                  f"{events.get('branchmp', 0):8} {stalls.get('dtb', 0):11} "
                  f"{stalls.get('dcache', 0):12}")
        (sum_b, ev_b, cyc_b, _), (sum_a, ev_a, cyc_a, _) = results["before"], results["after"]
        checks.expect(sum_b is not None and sum_b == sum_a,
                      f"{program}: the same checksum before and after ({sum_b})")
        checks.expect(ev_b.get(event, 0) >= least_events * max(1, ev_a.get(event, 0)),
                      f"{program}: {event} {ev_b.get(event, 0)} before >= {least_events} x "
                      f"{ev_a.get(event, 0)} after")
        checks.expect(cyc_a > 0 and cyc_b >= least_cycles * cyc_a,
                      f"{program}: cycles {cyc_b} before >= {least_cycles} x {cyc_a} after "
                      f"({cyc_b / max(1, cyc_a):.2f}x)")
    return checks.exit_code()


sys.exit(in_work_dir(main, KEEP))
