#!/usr/bin/env python3
"""Sampled call chains through a frame larger than 8 KB (issue 28): big_frame.c's
scan() keeps 10 KB of locals, as bzip2's testStream does, so its callers'
return addresses lie more than 10 KB above a sample's sp. Format 3's counts
(10 bits) capped the slice at 8184 bytes and no such chain reached main;
format 4 carries up to 16 KB.

The oracle is the machine's exact calling context tree of the same run
(`dcpi run --contexts`), through `dcpi score --contexts`:
  - with the default slice, >= 95 % of the user samples' callers match it
    to depth 8 and mix <- scan <- outer <- main is seen;
  - with 8184 bytes, the chains stop in big_frame (most samples not
    unwound): the frame really is too large for the old maximum, so the
    first check is not passing by accident.

  big_frame_chains.py BUILD LINUX_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary

BUILD, LINUX = sys.argv[1], sys.argv[2]
DCPI = dcpi_binary(BUILD)
CHECKS = Checks()
expect = CHECKS.expect


def dcpi(*args):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return done


def run_and_score(tmp, stack_bytes):
    db = os.path.join(tmp, f"big_frame_{stack_bytes or 'default'}.db")
    slice_args = ["--stack-bytes", str(stack_bytes)] if stack_bytes else []
    done = dcpi("run", "--cpus", "1", "--db", db, "-g", *slice_args, "--contexts", "--quiet",
                "--", os.path.join(LINUX, "big_frame"))
    expect("big_frame " in done.stdout, f"big_frame ran: {done.stdout.strip()!r}")
    return json.loads(dcpi("score", "--contexts", "--db", db, "--json").stdout)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        score = run_and_score(tmp, None)
        users = score["user_samples"]
        matched = score["matched"] / max(users, 1)
        expect(users >= 150, f"{users} user samples")
        expect(matched >= 0.95, f"default slice: {matched:.1%} of the user samples' callers "
               f"match the exact tree through the 10 KB frame (>= 95 %)")
        paths = [row["path"] for row in score["top"]]
        expect(["mix", "scan", "outer", "main"] in paths,
               f"mix <- scan <- outer <- main among the contexts ({paths[:3]})")
        short = run_and_score(tmp, 8184)
        short_matched = short["matched"] / max(short["user_samples"], 1)
        stopped = short["not_unwound_in"].get("/bin/big_frame", 0)
        expect(short_matched < 0.5 and stopped > short["user_samples"] / 2,
               f"8184 bytes (format 3's maximum): {short_matched:.1%} match, {stopped} of "
               f"{short['user_samples']} chains stop in /bin/big_frame (the frame is > 8 KB)")
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
