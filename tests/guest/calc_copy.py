#!/usr/bin/env python3
"""dcpi calc and dcpi score on a real profile (DCPI §6.1–6.2, issue 7).

Boots the copy workload (DCPI Figure 2's McCalpin copy loop) on 1 CPU with
the exec_counts plugin (exact counts, our dcpix) and QEMU's GDB stub; after
DCPI-DONE pulls the profile with `dcpi ingest`, quits QEMU (SIGTERM: the
plugin writes its file at exit), then runs `dcpi calc --json` on copy_loop
of /bin/copy and `dcpi score`; then (issue 14) the qemu machine's views:
the profile's machine, `dcpi calc --breakdown --truth` (its cycles against
the truth's) and `dcpi score --culprits` (nothing to score on qemu).

The bound (QEMU model): every instruction costs one cycle, so a frequency
class's estimate F is its samples per instruction, and F x mean period
estimates the class's executions. Samples are a binomial draw, so the
relative standard error of a class with S samples is 1/sqrt(S). Every class
with S >= 100 samples must match the plugin's exact count within 3 sigma:
|estimate / exact - 1| <= 3 / sqrt(S). (Exact counts are per virtual PC; init
shares the user address range but runs a few thousand instructions, far below
that bound. The mean period is the one the database recorded: the driver's
default, 61440 + 4095 / 2.)

Usage: calc_copy.py BUILD_DIR PLUGIN_SO [KEEP_DIR]
"""
import json
import os
import sys

from support.calc_guest import MIN_SAMPLES, Guest, checked_classes, work_files
from support.common import Checks

BUILD, PLUGIN = sys.argv[1], sys.argv[2]
GUEST = Guest(BUILD)
KERNEL = GUEST.kernel
COPY_ELF = os.path.join(GUEST.guest, "workloads", "copy")
CHECKS = Checks()
expect, dcpi = CHECKS.expect, GUEST.dcpi


def main():
    with work_files(sys.argv[3] if len(sys.argv) > 3 else None) as (db, counts_path):
        console, exact = GUEST.profile_with_exact_counts(
            PLUGIN, "init=/bin/init script=/etc/copy.mix", db, counts_path)
        expect("DCPI-DONE" in console, "the copy workload ran and the profile was flushed")
        expect("checksum copy 0xcb24511ba819bfb9" in console, "copy printed its checksum")
        expect(exact is not None, "the exec_counts plugin wrote its file at exit")

        report = json.loads(dcpi("calc", "--db", db, "--image", COPY_ELF, "--procedure",
                                 "copy_loop", "--json"))
        expect(report["model"].startswith("qemu"), f"the QEMU model is the default ({report['model']})")
        expect(report["cpus"] == 1, "the database says 1 CPU")
        expect(not report["model_has_dynamic_stalls"] and report["summary"]["dynamic_total"] == 0,
               "no dynamic stalls under the QEMU model")
        expect(all(not i["dynamic"] for b in report["blocks"] for i in b["instructions"]),
               "no dynamic culprit letters")
        period = report["period"]
        expect(period == 61440 + 4095 / 2 and report["period_source"] == "recorded",
               f"the mean period is the recorded default ({period}, {report['period_source']})")
        checked = 0
        for c, addresses, estimate, truth, error, bound in checked_classes(report, exact or {}):
            expect(abs(error) <= bound,
                   f"class {c['id']} ({len(addresses)} instructions, {c['samples']:.0f} samples): "
                   f"estimate {estimate:.0f} vs exact {truth:.0f} executions, error {100 * error:+.2f}% "
                   f"(bound {100 * bound:.2f}%: 3 sigma for the classes checked together)")
            checked += 1
        expect(checked >= 1, f"{checked} frequency classes with >= {MIN_SAMPLES} samples checked")

        text = dcpi("calc", "--db", db, "--image", COPY_ELF, "--procedure", "copy_loop")
        expect("Best-case" in text and "Net sampling error" in text and "qemu" in text,
               "the text report has block CPIs, the summary and the model")
        # Source lines from the image's DWARF, interleaved as dcpi list does.
        lines = {i["source"]["line"] for b in report["blocks"] for i in b["instructions"]
                 if i.get("source", {}).get("file", "").endswith("workloads/copy.c")}
        expect("dst[i] = src[i]" in text and lines,
               f"copy.c's loop line is interleaved in the listing (lines {sorted(lines)})")
        plain = dcpi("calc", "--db", db, "--image", COPY_ELF, "--procedure", "copy_loop",
                     "--no-source")
        expect("copy.c:" not in plain, "--no-source leaves them out")
        print(text)

        score = json.loads(dcpi("score", "--db", db, "--counts", counts_path, "--image", COPY_ELF,
                                "--procedure", "copy_loop", "--json"))
        within = score["instructions"]["within_5"]
        expect(score["instructions_scored"] > 0 and within >= 0.9,
               f"Figure 8 for copy_loop: {100 * within:.1f}% of samples within 5% (>= 90%)")
        print(dcpi("score", "--db", db, "--counts", counts_path, "--image", COPY_ELF))
        check_machine_views(report, db, counts_path)
    return CHECKS.exit_code()


def check_machine_views(report, db, counts_path):
    """Issue 14 on the qemu machine: the profile says where it came from, the
    Figure 4 breakdown's cycles (samples x period) match the truth's cycles
    (= executions: one cycle each) within 3/sqrt(S), and there are no stalls
    to score."""
    expect(report["machine"] == "qemu", f"the profile's machine is qemu ({report['machine']})")
    breakdown = json.loads(dcpi("calc", "--db", db, "--image", COPY_ELF, "--procedure",
                                "copy_loop", "--breakdown", "--truth", counts_path, "--json"))
    row = breakdown["procedures"][0]
    calc, truth = row["calc"], row["truth"]
    samples = calc["total"] / breakdown["period"]
    error = calc["total"] / truth["total"] - 1 if truth["total"] else 1
    expect(abs(error) <= 3 / samples ** 0.5,
           f"copy_loop's cycles: {calc['total']:.0f} from the samples vs {truth['total']:.0f} "
           f"in the truth ({100 * error:+.2f}%, bound {300 / samples ** 0.5:.2f}%)")
    expect(truth["execution"] == truth["total"] and calc["dynamic_stall"] == 0,
           "on qemu every cycle is execution, in the truth and in calc")
    score = json.loads(dcpi("score", "--db", db, "--truth", counts_path, "--image", COPY_ELF,
                            "--procedure", "copy_loop", "--culprits", "--json"))
    expect(score["culprits"] is None and "no stalls to score" in score["culprits_note"],
           f"--culprits on a qemu truth has nothing to score ({score.get('culprits_note')!r})")


if __name__ == "__main__":
    sys.exit(main())
