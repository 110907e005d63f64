#!/usr/bin/env python3
"""dcpi calc on an interpreter: a switch in a loop whose cases call GCC's
division helpers (issue 17), against exact counts (DCPI §6.1-6.2).

The bytecode workload (workloads/bytecode.c) runs a stack machine whose
dispatch is a `switch` compiled into a jump table; GCC computes the table's
address once before the loop and keeps it in a register across the cases
that divide (`__remq`, `__divq`, called with `jsr t9` and changing only t9,
t12 and AT). The constant propagation must know that those calls keep the
register (analysis/calc/decode/call_clobbers.h) to read the table; otherwise the
CFG has missing edges and every block is its own class.

Boots /etc/bytecode.mix on 1 CPU at a dense period
(period=2048 period_range=256, mean 2175.5) with the exec_counts plugin, then checks
`dcpi calc --json` and `dcpi score` on the interpreter (inlined into main):

- its jmp is read as a jump table of 12 entries, and the CFG has no
  missing edges;
- every frequency class with S >= 100 samples matches the exact count within
  3/sqrt(S) (support/calc_guest.checked_classes: padding that never ran is not
  averaged in);
- Figure 8: >= 90 % of the samples within 5 % of the exact counts, with
  dcpi's estimate and with the flow estimate (both reported by score).

Usage: calc_bytecode.py BUILD_DIR PLUGIN_SO [KEEP_DIR]
"""
import json
import os
import sys

from support.calc_guest import MIN_SAMPLES, Guest, checked_classes, work_files
from support.common import Checks

BUILD, PLUGIN = sys.argv[1], sys.argv[2]
GUEST = Guest(BUILD)
IMAGE = os.path.join(GUEST.guest, "workloads", "bytecode")
PROCEDURE = "main"
CHECKS = Checks()
expect, dcpi = CHECKS.expect, GUEST.dcpi


def main():
    with work_files(sys.argv[3] if len(sys.argv) > 3 else None) as (db, counts_path):
        console, exact = GUEST.profile_with_exact_counts(
            PLUGIN, "init=/bin/init script=/etc/bytecode.mix period=2048 period_range=256", db,
            counts_path)
        expect("DCPI-DONE" in console, "the bytecode workload ran and the profile was flushed")
        expect("bytecode: 200000 steps, 5600001 opcodes" in console,
               "the interpreter ran 5.6 M opcodes")
        expect(exact is not None, "the exec_counts plugin wrote its file at exit")

        report = json.loads(dcpi("calc", "--db", db, "--image", IMAGE, "--procedure", PROCEDURE,
                                 "--json"))
        jumps = report["indirect_jumps"]
        tables = [j["table"] for j in jumps if "table" in j]
        expect(len(tables) == 1 and len(jumps) == 1 and tables[0]["entries"] == 12,
               f"the dispatch jmp is read as a 12-entry jump table "
               f"({[j.get('problem') or j['table']['entries'] for j in jumps]})")
        expect(not report["missing_edges"], "the interpreter's CFG has no missing edges")
        checked = 0
        for c, addresses, estimate, truth, error, bound in checked_classes(report, exact or {}):
            expect(abs(error) <= bound,
                   f"class {c['id']} ({len(addresses)} instructions, {c['samples']:.0f} samples): "
                   f"estimate {estimate:.0f} vs exact {truth:.0f} executions, error "
                   f"{100 * error:+.2f}% (bound {100 * bound:.2f}%: 3 sigma for the classes checked together)")
            checked += 1
        expect(checked >= 5, f"{checked} frequency classes with >= {MIN_SAMPLES} samples checked")

        score = json.loads(dcpi("score", "--db", db, "--counts", counts_path, "--image", IMAGE,
                                "--procedure", PROCEDURE, "--json"))
        for name, scores in score["estimates"].items():
            within = scores["instructions"]["within_5"]
            edges = scores["edges"]["within_5"]
            expect(within >= 0.9,
                   f"Figure 8 with the {name} estimate: {100 * within:.1f}% of samples within 5% "
                   f"(>= 90%); Figure 9: {100 * edges:.1f}% of edge executions within 5%")
        expect(score["procedures_missing_edges"] == 0, "score flags no procedure")
        print(dcpi("score", "--db", db, "--counts", counts_path, "--image", IMAGE))
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
