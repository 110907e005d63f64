#!/usr/bin/env python3
"""End to end: qemu/run_profile.py boots the kernel on N CPUs, the guest
profiles its kernel workload, `dcpi samples` reads the logs over the GDB
stub. The report must agree exactly with the counts the guest printed, and
the copy loop (the mix's heaviest part) must be on top.
Usage: e2e_profile.py BUILD_DIR CPUS
"""
import json
import os
import re
import subprocess
import sys

BUILD, CPUS = sys.argv[1], int(sys.argv[2])
RUN = os.path.join(os.path.dirname(__file__), "..", "..", "qemu", "run_profile.py")


def main():
    done = subprocess.run([sys.executable, RUN, "--build", BUILD, "--cpus", str(CPUS),
                           "--samples", "1000", "--json"], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        print("FAILED: run_profile exited", done.returncode, done.stderr[-2000:])
        return 1
    report = json.loads(done.stdout)
    guest = {int(c): int(n) for c, n in re.findall(r"cpu (\d) took (\d+) samples", done.stderr)}
    host = {c["cpu"]: c["samples"] for c in report["cpus"]}
    checks = [
        (len(guest) == CPUS, f"guest reported {len(guest)} CPUs"),
        (host == guest, f"per-CPU samples read over the stub {host} equal the guest's counts {guest}"),
        (report["total_samples"] == sum(guest.values()), "total equals the sum over CPUs"),
        (sum(f["samples"] for f in report["functions"]) == report["total_samples"],
         "every sample is attributed to a function row"),
        (all(not f["function"].startswith(("[unknown", "pal_")) for f in report["functions"]),
         "no sample outside the kernel's functions (none inside PALcode)"),
        ("copy_words" in report["functions"][0]["function"], "the copy loop is the hottest function"),
    ]
    for ok, message in checks:
        print("ok:" if ok else "FAILED:", message)
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
