#!/usr/bin/env python3
"""ProfileMe's trap bit for OPCDEC (issue 27 item 2; docs/profileme.md "Trap").

tests/linux/traps executes a reserved opcode TRAPS times, each caught by a
SIGILL handler, and prints how many it caught and where the instruction is.
On the ev5 machine with ProfileMe (one record per INTERVAL fetched
instructions) and the truth:

- the program caught every trap (its own count, the oracle);
- the truth's `pcevent PC trap N` at the instruction is that count, exactly
  (the model sees the CPU enter PALcode's OPCDEC vector, 0x380, right after
  the block that ends with it);
- every record of the instruction has the trap bit, and records x S is
  within 4 sigma of the count (Poisson: sigma = sqrt(records) x S);
- no other instruction of main has a trap record where the truth has none.

Usage: ev5_profileme_traps.py BUILD_DIR LINUX_PROGRAMS_DIR
"""
import math
import os
import re
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import Checks, dcpi_binary, profileme_rows

TRAPS = 20000  # tests/linux/traps.c
INTERVAL = 256


def check_trap_records(checks, build, db, image, site, traps, what):
    """ProfileMe's records of `site` in `image`'s main: at least 16, every one
    with the trap bit, and records x S within 4 sigma of the `traps` it took.
    Returns main's rows by address and the site's row (None without one)."""
    s, rows = profileme_rows(build, db, image, "main")
    at_site = rows.get(site)
    checks.expect(at_site is not None and at_site["records"] >= 16,
                  f"records of {what}: {at_site and at_site['records']}")
    if at_site is None:
        return rows, None
    k = at_site["records"]
    trapped = at_site["events"]["trap"]
    checks.expect(trapped == k, f"{trapped} of its {k} records have the trap bit")
    sigma = math.sqrt(k) * s
    checks.expect(abs(trapped * s - traps) <= 4 * sigma,
                  f"trap records x S = {trapped * s:.0f} against {traps} (4 sigma "
                  f"{4 * sigma:.0f})")
    return rows, at_site


def main():
    build, linux_dir = sys.argv[1], sys.argv[2]
    dcpi = dcpi_binary(build)
    checks = Checks()
    with tempfile.TemporaryDirectory() as work:
        db, truth_path = os.path.join(work, "db"), os.path.join(work, "truth")
        run = subprocess.run([dcpi, "run", "--quiet", "--machine", "ev5", "--cpus", "1",
                              "--profileme-interval", str(INTERVAL), "--truth", truth_path,
                              "--db", db, "--", os.path.join(linux_dir, "traps")],
                             capture_output=True, text=True, timeout=900, check=True)
        match = re.search(r"caught (\d+) at 0x([0-9a-f]+)", run.stdout)
        checks.expect(match is not None and int(match.group(1)) == TRAPS,
                      f"the program caught {match and match.group(1)} of {TRAPS} SIGILLs")
        if match is None:
            return checks.exit_code()
        site = int(match.group(2), 16)
        truth = truth_file.read(truth_path)
        true_traps = truth.pc_events.get("trap", {})
        checks.expect(true_traps.get(site, 0) == TRAPS,
                      f"the truth's traps at {site:#x}: {true_traps.get(site, 0)} (exactly "
                      f"{TRAPS})")
        rows, at_site = check_trap_records(checks, build, db, "traps", site, TRAPS,
                                           "the trapping instruction")
        if at_site is None:
            return checks.exit_code()
        wrong = [a for a, r in rows.items() if r["events"]["trap"] and not true_traps.get(a)]
        checks.expect(not wrong, f"trap records where the truth has none: {wrong}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
