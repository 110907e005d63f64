#!/usr/bin/env python3
"""dcpi stat on the real mix (issue 26 item 4's "Done when": counting without
multiplexing equals the model's totals exactly, per process, on the `real`
mix, 1 and 4 CPUs): lua, bzip2, minigzip, dash, xz and sqlite3 (unmodified
glibc programs, toolchain/real-programs.cmake) counted on the ev5 machine
with instructions (counter 0's issues) and D-cache misses (counter 2),
against the truth the model's plugin writes, which nobody here counts twice:

- every process's instructions equal the truth's insn lines of its address
  spaces, and its dmiss the truth's pcevent lines, exactly;
- IRIX's rule: a parent's children totals equal its reaped children's own
  plus theirs.

Usage: ev5_stat_real.py BUILD_DIR CPUS
"""
import os
import sys
import tempfile

from support import truth_file
from support.common import Checks

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ev5_stat  # noqa: E402  (its readers and checks)

BUILD = sys.argv[1]
CPUS = int(sys.argv[2])


def main():
    checks = Checks()
    if not os.path.isdir(os.path.join(BUILD, "mixes", "real", "bin")):
        print(f"FAILED: {BUILD}/mixes/real is missing (toolchain/build-real-programs.sh)")
        return 1
    with tempfile.TemporaryDirectory() as work:
        label = f"real-cpus{CPUS}"
        processes, truth, report = ev5_stat.run_stat(work, label, CPUS, "instructions,dmiss",
                                                     "--mix", "real", "--timeout", "1200")
        ev5_stat.check_exact(checks, label, processes, truth, ("dmiss",))
        ev5_stat.check_instructions(checks, label, processes, truth)
        ev5_stat.check_irix(checks, label, processes)
        ev5_stat.check_truth_stalls(checks, label, processes, truth, report)
        for row in report["processes"]:
            e = row["events"][0] if row["events"] else {}
            print(f"{label}: {row['program']:>10} pid {row['pid']:>3} cycles {row['cycles']:>12} "
                  f"instructions {row['instructions']:>12} IPC {row['ipc']:.3f} dmiss "
                  f"{e.get('count')} est. {e.get('estimated_cycles')} truth "
                  f"{e.get('truth_stall_cycles')}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
