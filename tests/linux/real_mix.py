#!/usr/bin/env python3
"""The real mix (issue 15): lua, bzip2, minigzip and dash (issue 29: a script
with pipes, redirection, a here-document and a subshell), cross-built from Debian
sources by toolchain/build-real-programs.sh, run by `dcpi run --mix real`
on CPUS CPUs and checked against the same binaries under qemu-alpha user mode
(an oracle nobody here wrote), with the same arguments in BUILD/mixes/real.

  real_mix.py BUILD MIX_FILE CPUS

Checks: every program exits 0 in the guest as under qemu-alpha; each
program's output is qemu-alpha's, line for line; no system call was missing
(ENOSYS); unknown samples <= 0.05 %; the samples are attributed to the
programs' and libraries' procedures by name (liblua5.4.so.0, libbz2.so.1.0,
libz.so.1, libc.so.6.1).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary

BUILD, MIX_FILE, CPUS = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
DCPI = dcpi_binary(BUILD)
REAL = os.path.join(BUILD, "mixes", "real")
SYSROOT = "/usr/alpha-linux-gnu"
CHECKS = Checks()
expect = CHECKS.expect


def mix_commands():
    """The mix's command lines as argv lists (comments, '&' and wait dropped)."""
    commands = []
    with open(MIX_FILE) as mix:
        for line in mix:
            words = line.split("#")[0].split()
            if words and words[-1] == "&":
                words.pop()
            if words and words != ["wait"]:
                commands.append(words)
    return commands


def oracle(argv):
    """Output (stdout and stderr, as on the console) and status under qemu-alpha."""
    program = os.path.join(REAL, "bin", os.path.basename(argv[0]))
    done = subprocess.run(["qemu-alpha", "-L", SYSROOT, "-E",
                           "LD_LIBRARY_PATH=" + os.path.join(REAL, "lib"), program, *argv[1:]],
                          cwd=REAL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)
    return done.stdout, done.returncode


def program_lines(console):
    """The console without the kernel's, init's and dcpi's own lines. dcpi
    run's progress lines go to the same stream as the console's echo and can
    land inside a console line that was not finished yet: cut them out."""
    console = re.sub(r"dcpi run: [^\n]* samples per virtual second\n", "", console)
    return [line for line in console.splitlines()
            if not line.startswith(("dcpi-kernel:", "init:", "dcpi run:", "DCPI-"))]


def contains(lines, wanted):
    for start in range(len(lines) - len(wanted) + 1):
        if lines[start:start + len(wanted)] == wanted:
            return True
    return False


def check_outputs(console):
    lines = program_lines(console)
    for argv in mix_commands():
        expected, status = oracle(argv)
        name = os.path.basename(argv[0])
        expect(status == 0, f"{' '.join(argv)} exits 0 under qemu-alpha")
        exits = re.findall(rf"init: {name} pid \d+ exit (\d+)", console)
        expect(exits and all(e == "0" for e in exits), f"{name} exits 0 in the guest ({exits})")
        if expected.strip():
            expect(contains(lines, expected.splitlines()),
                   f"{' '.join(argv[:2])}...: the output is qemu-alpha's "
                   f"({len(expected.splitlines())} lines)")
    expect("init exited with status 0" in console, "init exited with status 0")
    expect("not implemented (ENOSYS)" not in console,
           "no system call was missing: " + "; ".join(re.findall(r".*ENOSYS.*", console))[:300])


def procedures(db, image):
    done = subprocess.run([DCPI, "prof", "--db", db, "--images",
                           f"{REAL}/bin:{REAL}/lib:{SYSROOT}/lib", "--image", image, "--json"],
                          capture_output=True, text=True)
    expect(done.returncode == 0, f"dcpi prof --image {image}: {done.stderr[-300:]}")
    rows = json.loads(done.stdout or "{}").get("rows", [])
    return {row["procedure"]: row["samples"] for row in rows}


def check_profile(db, console):
    unknown = re.search(r"unknown = ([0-9.e+-]+)%", console)
    expect(unknown and float(unknown.group(1)) <= 0.05,
           f"unknown samples <= 0.05 % ({unknown.group(1) if unknown else 'no summary'})")
    for image, wanted in [("/lib/liblua5.4.so.0", "luaV_execute"),
                          ("/lib/libbz2.so.1.0", "BZ2_decompress"),
                          ("/lib/libz.so.1", "inflate"),
                          ("/bin/dash", "eval"),
                          ("/lib/libc.so.6.1", "")]:
        rows = procedures(db, image)
        named = {p: s for p, s in rows.items() if not re.match(r"^[^ ]*\+0x[0-9a-f]+$", p)}
        top = sorted(named.items(), key=lambda kv: -kv[1])[:4]
        print(f"{image}: {sum(rows.values())} samples, top {top}")
        expect(sum(named.values()) > 0, f"{image}: samples in named procedures")
        expect(any(wanted in p for p in named), f"{image}: a procedure named like '{wanted}'")


def main():
    if not os.path.isdir(os.path.join(REAL, "bin")):
        print(f"FAILED: {REAL} is missing (toolchain/build-real-programs.sh)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "real.db")
        done = subprocess.run([DCPI, "run", "--mix", "real", "--cpus", str(CPUS), "--db", db,
                               "--timeout", "500"], capture_output=True, text=True, timeout=560)
        console = done.stderr + done.stdout  # the console, then dcpi run's summary
        expect(done.returncode == 0, f"dcpi run --mix real --cpus {CPUS} exits 0 "
                                     f"({done.returncode}: {console[-400:]})")
        check_outputs(console)
        check_profile(db, console)
    print("failures:", len(CHECKS.failures))
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
