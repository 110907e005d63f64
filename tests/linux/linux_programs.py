#!/usr/bin/env python3
"""Unmodified Linux/Alpha programs under `dcpi run -- PROGRAM` (issue 15),
checked against qemu-alpha user mode (an oracle nobody here wrote), the
cross binutils' nm and readelf.

  linux_programs.py BUILD LINUX_DIR outputs   C (glibc) and C++ (libstdc++) programs:
                                              output identical to qemu-alpha, exit 0
  linux_programs.py BUILD LINUX_DIR profile   samples attributed to libc.so.6.1 and
                                              libstdc++.so.6 procedures by name;
                                              unknown samples <= 0.05 %
  linux_programs.py BUILD LINUX_DIR loadmap   one load-map record per executable
                                              mapping, build-ids and addresses right
  linux_programs.py BUILD LINUX_DIR errors    a faulting program, a wrong-architecture
                                              ELF, a missing library or interpreter,
                                              an unimplemented system call
  linux_programs.py BUILD LINUX_DIR static    static glibc: relaxed refused with its
                                              cause, --no-relax runs
  linux_programs.py BUILD LINUX_DIR smp       the C++ program on 4 CPUs
  linux_programs.py BUILD LINUX_DIR groups    two programs in one run (-- A -- B): both
                                              outputs, the first failure's status
  linux_programs.py BUILD LINUX_DIR baremetal the README's newlib route: dcpi-newlib-gcc,
                                              then dcpi run -- ./bare
  linux_programs.py BUILD LINUX_DIR remap     mremap: grow in place, move, refuse, shrink,
                                              glibc's realloc; no ENOSYS
  linux_programs.py BUILD LINUX_DIR forged    a program printing panic:, DCPI-DONE and
                                              init's and the kernel's verdicts steers nothing
                                              (issue 30): samples stored, its own exit 7
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary, dynamic_symbol, symbol

BUILD, LINUX, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
DCPI = dcpi_binary(BUILD)
SYSROOT = "/usr/alpha-linux-gnu"
CHECKS = Checks()
expect = CHECKS.expect


def program(name):
    return os.path.join(LINUX, name)


def oracle(name, *args):
    """The program's output and status under qemu-alpha user mode."""
    done = subprocess.run(["qemu-alpha", "-L", SYSROOT, program(name), *args],
                          capture_output=True, text=True, timeout=120)
    return done.stdout, done.returncode


def dcpi_run(db, name, *args, cpus=1, extra=()):
    argv = [DCPI, "run", "--cpus", str(cpus), "--db", db, "--timeout", "240", *extra, "--",
            name if os.path.isabs(name) else program(name), *args]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=280)
    return done


def console_has(console, text):
    """Every line of `text`, in order, as consecutive console lines."""
    lines = text.splitlines()
    console_lines = console.splitlines()
    for start in range(len(console_lines) - len(lines) + 1):
        if console_lines[start:start + len(lines)] == lines:
            return True
    return False


def check_output(db, name, *args, cpus=1, same_output=True):
    expected, status = oracle(name, *args)
    expect(status == 0 and expected.strip(), f"{name} runs under qemu-alpha: {expected.strip()!r}")
    if not same_output:  # it prints addresses, which differ between the two
        expected = expected.splitlines()[0]
    done = dcpi_run(db, name, *args, cpus=cpus)
    expect(done.returncode == 0, f"dcpi run -- {name} exits 0 (got {done.returncode}: "
                                 f"{done.stderr[-600:]})")
    # Like perf record, dcpi run's stdout is the program's output and nothing
    # else (issue 30): the kernel's, init's and dcpi's lines are on stderr.
    if same_output:
        expect(done.stdout == expected,
               f"{name}: dcpi run's stdout is exactly qemu-alpha's output "
               f"({done.stdout[:200]!r} vs {expected[:200]!r})")
    expect(console_has(done.stdout, expected), f"{name}'s output is qemu-alpha's")
    expect("dcpi-kernel:" not in done.stdout and "dcpi run:" not in done.stdout
           and "terminating on signal" not in done.stdout + done.stderr,
           f"{name}: no system line on stdout, no QEMU termination line at all")
    unknown = re.search(r"unknown = ([0-9.e+-]+)%", done.stderr)  # the summary is on stderr
    expect(unknown and float(unknown.group(1)) <= 0.05,
           f"unknown samples <= 0.05 % ({unknown.group(1) if unknown else 'no summary'})")
    return done


def case_outputs(tmp):
    check_output(os.path.join(tmp, "c.db"), "sorter", "3000")
    # 1000 frames of 4 KB: the stack grows past the 256 KB mapped at spawn.
    check_output(os.path.join(tmp, "deep.db"), "sorter", "--deep", "1000", "10")
    check_output(os.path.join(tmp, "cxx.db"), "containers", "5000")
    # The last line without a newline, init's verdicts between partial lines.
    check_output(os.path.join(tmp, "pl.db"), "partial_line")
    # The wall clock starts at the host's time; its absolute deadlines expire.
    check_output(os.path.join(tmp, "rt.db"), "realtime", cpus=2)
    # libm by dlopen: bundled because the program names it, and profiled.
    db = os.path.join(tmp, "dl.db")
    check_output(db, "dlopen_math")
    libm = procedures(db, "/lib/libm.so.6.1")
    expect(sum(libm.values()) >= 20, f"the dlopen'd libm has samples: {libm}")


def procedures(db, image):
    # No --images: dcpi run recorded where the program and its libraries are.
    done = subprocess.run([DCPI, "prof", "--db", db, "--image", image, "--json"],
                          capture_output=True, text=True)
    expect(done.returncode == 0 and "no ELF" not in done.stderr,
           f"dcpi prof --image {image} finds its ELF with no --images: {done.stderr[-300:]}")
    rows = json.loads(done.stdout or "{}").get("rows", [])
    return {row["procedure"]: row["samples"] for row in rows}


def fde_starts(path):
    """Where binutils' readelf says each .eh_frame FDE's procedure begins."""
    frames = subprocess.run(["alpha-linux-gnu-readelf", "--debug-dump=frames", path],
                            capture_output=True, text=True).stdout
    return {int(m.group(1), 16) for m in re.finditer(r" FDE .*pc=([0-9a-f]+)\.\.", frames)}


def check_unnamed_rows(rows, image):
    """Code no symbol names (libc's static functions) is one row per procedure,
    named by where its FDE begins, not one row per sampled PC."""
    starts = fde_starts(SYSROOT + image)
    unnamed = [p for p in rows if re.match(r"^[^ ]*\+0x[0-9a-f]+$", p)]
    stray = [p for p in unnamed if int(p.rsplit("+", 1)[1], 16) not in starts]
    expect(starts and not stray,
           f"{image}: unnamed rows start where an FDE does ({len(unnamed)} rows): {stray[:5]}")


def case_profile(tmp):
    for name, args, image, wanted in [
            ("sorter", ["60000"], "/lib/libc.so.6.1", ("msort", "strcmp", "qsort", "malloc")),
            ("containers", ["200000"], "/lib/libstdc++.so.6", ("std::", "operator new"))]:
        db = os.path.join(tmp, name + ".db")
        check_output(db, name, *args)
        rows = procedures(db, image)
        named = {p: s for p, s in rows.items() if not re.match(r"^[^ ]*\+0x[0-9a-f]+$", p)}
        print(f"{image}: {sorted(rows.items(), key=lambda kv: -kv[1])[:6]}")
        expect(sum(named.values()) > 0, f"{name}: samples in {image} procedures with names")
        expect(any(any(w in p for w in wanted) for p in named),
               f"{name}: a {image} procedure named like {wanted}")
        check_unnamed_rows(rows, image)


def build_id(path):
    notes = subprocess.run(["alpha-linux-gnu-readelf", "-n", path], capture_output=True,
                           text=True).stdout
    match = re.search(r"Build ID: ([0-9a-f]+)", notes)
    return match.group(1) if match else "-"


def case_loadmap(tmp):
    libm = f"{SYSROOT}/lib/libm.so.6.1"
    expected, _ = oracle("sorter", "--dlopen", "10")
    # The bundle puts libm at /lib by itself (sorter names it in its strings,
    # for dlopen): a --file there too is refused as a second copy.
    done = dcpi_run(os.path.join(tmp, "map.db"), "sorter", "--dlopen", "--load-map", "100")
    expect(done.returncode == 0 and expected.splitlines()[0] in done.stdout,
           f"dlopen of a library the bundle found works: {expected.splitlines()[0]}")
    records = [dict(re.findall(r"(\w[\w-]*)=(\S+)", line)) | {"kind": line.split()[3]}
               for line in done.stderr.splitlines() if line.startswith("dcpi-kernel: loadmap ")]
    pid = next((r["pid"] for r in records if r.get("path") == "/bin/sorter" and r["kind"] == "exec"),
               None)
    expect(pid is not None, "an exec record for /bin/sorter")
    mine = [r for r in records if r.get("pid") == pid and r["kind"] in ("exec", "map")]
    paths = sorted(r["path"] for r in mine)
    expect(paths == ["/bin/sorter", "/lib/ld-linux.so.2", "/lib/libc.so.6.1", "/lib/libm.so.6.1"],
           f"one record per executable mapping, dlopen's too: {paths}")
    hosts = {"/bin/sorter": program("sorter"), "/lib/ld-linux.so.2": f"{SYSROOT}/lib/ld-linux.so.2",
             "/lib/libc.so.6.1": f"{SYSROOT}/lib/libc.so.6.1", "/lib/libm.so.6.1": libm}
    for record in mine:
        expect(record["build-id"] == build_id(hosts[record["path"]]),
               f"{record['path']}: build-id {record['build-id']} is the ELF's")
    addresses = re.search(r"address qsort (0x[0-9a-f]+) strlen (0x[0-9a-f]+) main (0x[0-9a-f]+)",
                          done.stdout)  # the program's output
    expect(addresses is not None, "the program printed its addresses")
    if not addresses:
        return
    libc = next(r for r in mine if r["path"] == "/lib/libc.so.6.1")
    load, size, link = (int(libc[k], 16) for k in ("load", "size", "link"))
    for index, name in ((1, "qsort"), (2, "strlen")):
        runtime = int(addresses.group(index), 16)
        linked = dynamic_symbol(f"{SYSROOT}/lib/libc.so.6.1", name)
        expect(load <= runtime < load + size and runtime - load + link == linked,
               f"{name} at {runtime:#x} maps to libc's {name} ({linked and hex(linked)}) "
               f"through load {load:#x} link {link:#x}")
    exe = next(r for r in mine if r["path"] == "/bin/sorter")
    main = int(addresses.group(3), 16)
    main_symbol = symbol(program("sorter"), "main")
    expect(main - int(exe["load"], 16) + int(exe["link"], 16) == main_symbol,
           "main maps to the executable's main")


def case_errors(tmp):
    db = os.path.join(tmp, "err.db")
    done = dcpi_run(db, "sorter", "--fault")
    expect(done.returncode == 128 + 11, f"a faulting program: exit 139 (got {done.returncode})")
    expect("killed by signal 11" in done.stderr and "memory fault" in done.stderr,
           "the fault is reported: " + done.stderr[-300:])
    for name, message in [("/bin/true", "not an Alpha ELF"),
                          ("sorter-needs-missing", "needs the shared library libdcpimissing.so"),
                          ("sorter-badinterp", "ld-missing.so.9"),
                          (os.path.join(tmp, "nonexistent"), "no program")]:
        done = dcpi_run(db, name)
        lines = [l for l in done.stderr.splitlines() if l.strip()]
        expect(done.returncode != 0 and lines and message in lines[-1],
               f"{os.path.basename(name)}: exit {done.returncode}, one clear line with "
               f"'{message}': {lines[-1:] if lines else ''}")
    done = dcpi_run(db, "sorter", "--enosys")
    expect(done.returncode == 0 and "syscall 9999 = -1 errno ENOSYS" in done.stdout,
           "an unimplemented call returns ENOSYS and the program lives on")
    expect("syscall 148 = -1 errno ENOSYS" in done.stdout, "quotactl is ENOSYS too")
    expect("system call quotactl (148) is not implemented" in done.stderr,
           "the first call of a Linux number names it (issue 29): " + done.stderr[-400:])
    expect(re.search(r"unimplemented system calls \(name \(number\) x calls\):"
                     r" \? \(9999\) x1 quotactl \(148\) x1", done.stderr),
           "the run reports the unimplemented calls by name and how often")
    expect(subprocess.run([DCPI, "db", "check", db], capture_output=True).returncode == 0,
           "the database is consistent after the failures")


def case_static(tmp):
    done = dcpi_run(os.path.join(tmp, "s.db"), "sorter-static", "100")
    expect(done.returncode != 0 and "-Wl,--no-relax" in done.stderr and "__ehdr_start" in done.stderr,
           "a relaxed static glibc program is refused with its cause")
    qemu = subprocess.run(["qemu-alpha", program("sorter-static"), "100"], capture_output=True)
    expect(qemu.returncode != 0, "qemu-alpha user mode cannot run it either "
                                 f"(status {qemu.returncode})")
    check_output(os.path.join(tmp, "s2.db"), "sorter-static-norelax", "3000")


def case_groups(tmp):
    db = os.path.join(tmp, "g.db")
    first, _ = oracle("sorter", "500")
    second, _ = oracle("containers", "500")
    done = subprocess.run([DCPI, "run", "--cpus", "2", "--db", db, "--", program("sorter"), "500",
                           "--", program("containers"), "500"], capture_output=True, text=True,
                          timeout=280)
    expect(done.returncode == 0, f"two programs: exit 0 ({done.returncode})")
    expect(console_has(done.stdout, first) and console_has(done.stdout, second),
           "both programs' outputs")
    done = subprocess.run([DCPI, "run", "--cpus", "1", "--db", db, "--", program("sorter"),
                           "--fault", "--", program("containers"), "50"], capture_output=True,
                          text=True, timeout=280)
    expect(done.returncode == 139 and "init: containers pid" in done.stderr,
           f"the first failure's status (139: {done.returncode}), and the second still ran")
    done = subprocess.run([DCPI, "run", "--db", db, "--", program("sorter"), "--"],
                          capture_output=True, text=True)
    expect(done.returncode == 2 and "followed by the program" in done.stderr,
           f"an empty group is a usage error: {done.stderr.strip()}")


def case_baremetal(tmp):
    wrapper = os.path.join(BUILD, "guest", "dcpi-newlib-gcc")
    bare = os.path.join(tmp, "bare")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bare.c")
    built = subprocess.run([wrapper, "-O2", "-o", bare, source], capture_output=True, text=True)
    expect(built.returncode == 0, f"dcpi-newlib-gcc builds it: {built.stderr[-300:]}")
    expected = subprocess.run(["qemu-alpha", bare], capture_output=True, text=True).stdout
    expect(expected.startswith("bare metal sum"), f"it runs under qemu-alpha: {expected!r}")
    done = dcpi_run(os.path.join(tmp, "b.db"), bare)
    expect(done.returncode == 0 and done.stdout == expected,
           f"dcpi run -- ./bare: the same output on stdout, exit 0 ({done.returncode})")


def case_smp(tmp):
    check_output(os.path.join(tmp, "smp.db"), "containers", "20000", cpus=4)


def case_remap(tmp):
    done = check_output(os.path.join(tmp, "remap.db"), "remap")
    expect("not implemented (ENOSYS)" not in done.stderr, "every call it made is implemented")


def case_forged(tmp):
    """Issue 30: the console is only echoed; the kernel's and init's messages
    reach the host on their own channel (COM3), which no program can write."""
    db = os.path.join(tmp, "forged.db")
    done = dcpi_run(db, "console_forger")
    expect("panic: forged by a user program" in done.stderr, "the forged lines are echoed")
    expect("the guest kernel panicked" not in done.stderr, "a printed panic: is no panic")
    expect(done.returncode == 7, f"dcpi run exits with the program's own 7 ({done.returncode}): "
           f"{done.stderr[-400:]!r}")
    expect("console_forger exited with status 7" in done.stderr, "the real exit is reported")
    samples = re.search(r"dcpi run: (\d+) samples", done.stdout + done.stderr)
    expect(samples and int(samples.group(1)) > 100, "the run went on to its end and stored samples")


with tempfile.TemporaryDirectory() as tmp:
    {"outputs": case_outputs, "profile": case_profile, "loadmap": case_loadmap,
     "errors": case_errors, "static": case_static, "smp": case_smp, "groups": case_groups,
     "baremetal": case_baremetal, "remap": case_remap, "forged": case_forged}[CASE](tmp)
print(f"{len(CHECKS.failures)} failures")
sys.exit(CHECKS.exit_code())
