#!/usr/bin/env python3
"""The real mix (issue 15): lua, bzip2, minigzip and dash (issue 29: a script
with pipes, redirection, a here-document and a subshell), xz with 4 threads
and sqlite3's shell (issue 29), cross-built from Debian sources by
toolchain/build-real-programs.sh, run by `dcpi run --mix real` on CPUS CPUs
and checked against the same binaries under qemu-alpha user mode (an oracle
nobody here wrote), with the same arguments in a copy of BUILD/mixes/real's
etc/ (the programs write files there).

  real_mix.py BUILD MIX_FILE CPUS

Checks: every program exits 0 in the guest as under qemu-alpha; each
program's stdout and stderr are qemu-alpha's, line for line; no system call was missing
(ENOSYS); unknown samples <= 0.05 %; the samples are attributed to the
programs' and libraries' procedures by name (liblua5.4.so.0, libbz2.so.1.0,
libz.so.1, libc.so.6.1, liblzma.so.5, libsqlite3.so.0). xz: the stream it
wrote in the guest (dcpi run --output) is qemu-alpha's byte for byte (and
the host's xz 5.4.1's with the same options, when the host has that
version: a second oracle), its decompression gives the text back, and its
threads took samples (on 4 CPUs, from every CPU).
"""
import json
import os
import re
import shutil
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


XZ_STREAM = "etc/real/words.txt.out.xz"  # what the mix's xz lines write
XZ_ROUND_TRIP = "etc/real/words.txt.out"


def oracle(argv, cwd):
    """Output (stdout, stderr) and status under qemu-alpha, run in `cwd`,
    which holds a copy of the mix's etc/."""
    program = os.path.join(REAL, "bin", os.path.basename(argv[0]))
    done = subprocess.run(["qemu-alpha", "-L", SYSROOT, "-E",
                           "LD_LIBRARY_PATH=" + os.path.join(REAL, "lib"), program, *argv[1:]],
                          cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True, timeout=300)
    return (done.stdout, done.stderr), done.returncode


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


def check_outputs(done, oracle_dir):
    """Each program's stdout among dcpi run's stdout and its stderr among
    dcpi run's stderr (the programs' streams are echoed apart)."""
    console = done.stderr + done.stdout
    streams = (program_lines(done.stdout), program_lines(done.stderr))
    for argv in mix_commands():
        outputs, status = oracle(argv, oracle_dir)
        name = os.path.basename(argv[0])
        expect(status == 0, f"{' '.join(argv)} exits 0 under qemu-alpha")
        exits = re.findall(rf"init: {name} pid \d+ exit (\d+)", console)
        expect(exits and all(e == "0" for e in exits), f"{name} exits 0 in the guest ({exits})")
        for lines, expected, stream in zip(streams, outputs, ("stdout", "stderr")):
            if expected.strip():
                expect(contains(lines, expected.splitlines()),
                       f"{' '.join(argv[:2])}...: the {stream} is qemu-alpha's "
                       f"({len(expected.splitlines())} lines)")
    expect("init exited with status 0" in console, "init exited with status 0")
    expect("not implemented (ENOSYS)" not in console,
           "no system call was missing: " + "; ".join(re.findall(r".*ENOSYS.*", console))[:300])


def read_bytes(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def host_xz_stream(oracle_dir):
    """The host's xz with the mix's options, if it is the same version (5.4.1):
    its multithreaded block mode writes the same bytes on any machine."""
    xz = shutil.which("xz")
    if xz is None or "5.4.1" not in subprocess.run([xz, "--version"], capture_output=True,
                                                   text=True).stdout:
        return None
    argv = next(a for a in mix_commands() if a[0] == "/bin/xz" and "-z" in a)
    options = [a for a in argv[1:-1] if a not in ("-k", "-f", "-S", ".out.xz")]
    return subprocess.run([xz, *options, "-c", os.path.join(oracle_dir, argv[-1])],
                          capture_output=True, timeout=120).stdout


def check_xz_files(tmp, oracle_dir):
    stream = read_bytes(os.path.join(tmp, "guest.xz"))
    want = read_bytes(os.path.join(oracle_dir, XZ_STREAM))
    expect(stream is not None and stream == want,
           f"xz -T4's stream in the guest is qemu-alpha's, byte for byte "
           f"({len(stream or b'')} and {len(want or b'')} bytes)")
    host = host_xz_stream(oracle_dir)
    if host is not None:
        expect(stream == host, "... and the host's xz 5.4.1's with the same options")
    else:
        print("the host has no xz 5.4.1: compared with qemu-alpha's stream only")
    text = read_bytes(os.path.join(REAL, "etc/real/words.txt"))
    expect(read_bytes(os.path.join(tmp, "guest.out")) == text,
           f"xz -d -T4 in the guest gave the text back ({len(text or b'')} bytes)")


def check_xz_threads(db):
    """xz's worker threads took samples, and on 4 CPUs from every CPU."""
    table = dcpi_json(["procs", "--db", db]).get("epochs", [{}])[-1]
    pids = {p["pid"] for p in table.get("processes", []) if p.get("program") == "/bin/xz"}
    rows = dcpi_json(["prof", "--db", db, "--by", "tid,cpu"]).get("rows", [])
    tids, cpus = {}, set()
    for row in rows:
        if row.get("pid") in pids:
            tids[row["tid"]] = tids.get(row["tid"], 0) + row["samples"]
            cpus.add(row["cpu"])
    print(f"xz: pids {sorted(pids)}, samples per thread {tids}, CPUs {sorted(cpus)}")
    expect(len(pids) == 2, f"two xz processes in the table (compress, decompress): {pids}")
    busy = [t for t, n in tids.items() if t not in pids and n > 0]
    expect(len(busy) >= 4, f"xz's worker threads (not the main ones) have samples: {tids}")
    expect(len(cpus) == CPUS, f"xz's samples come from all {CPUS} CPUs: {sorted(cpus)}")


def dcpi_json(args):
    done = subprocess.run([DCPI, *args, "--json"], capture_output=True, text=True, timeout=120)
    expect(done.returncode == 0, f"dcpi {' '.join(args)}: {done.stderr[-300:]}")
    return json.loads(done.stdout or "{}")


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
                          ("/lib/liblzma.so.5", "lz"),
                          ("/lib/libsqlite3.so.0", "sqlite3VdbeExec"),
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
                               "--timeout", "500",
                               "--output", f"{XZ_STREAM}:{os.path.join(tmp, 'guest.xz')}",
                               "--output", f"{XZ_ROUND_TRIP}:{os.path.join(tmp, 'guest.out')}"],
                              capture_output=True, text=True, timeout=560)
        console = done.stderr + done.stdout  # the console, then dcpi run's summary
        expect(done.returncode == 0, f"dcpi run --mix real --cpus {CPUS} exits 0 "
                                     f"({done.returncode}: {console[-400:]})")
        oracle_dir = os.path.join(tmp, "oracle")
        shutil.copytree(os.path.join(REAL, "etc"), os.path.join(oracle_dir, "etc"))
        check_outputs(done, oracle_dir)
        check_xz_files(tmp, oracle_dir)
        check_xz_threads(db)
        check_profile(db, console)
    print("failures:", len(CHECKS.failures))
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
