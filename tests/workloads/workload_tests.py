#!/usr/bin/env python3
"""Tests of the guest workloads (workloads/): every checksum line of the
Alpha build must equal the native one, bit for bit.

  compare NATIVE_DIR ALPHA_DIR PROGRAM [ARGS...]
      run PROGRAM natively and under qemu-alpha user mode (Linux system
      calls, the same numbers as our kernel's), compare the checksum lines
  native-init NATIVE_DIR MIX_DIR
      run the native init on every mix file; all children exit 0, every
      program's checksum line appears, and init reports failures correctly
  runtime NATIVE_DIR ALPHA_DIR DATA_FILE
      the runtime self-test (rttest) under qemu-alpha and natively
  initrd INITRD ALPHA_DIR MIX_DIR
      the cpio archive: newc format, /bin/<program> for every Alpha ELF
      (statically linked, with a build-id), /etc/*.mix referring to them
  guest BUILD_DIR NATIVE_DIR CPUS MIX
      boot PALcode + kernel + initrd under qemu-system-alpha with the mix,
      compare every checksum with the native run; exits 77 (skipped) while
      the kernel does not run processes (no `init:` line on the console)
"""
import os
import re
import shutil
import subprocess
import sys
import threading

from support.common import GuestFiles, expect

HERE = os.path.dirname(os.path.abspath(__file__))

SKIP = 77
CHECKSUM = re.compile(r"^checksum (\S+) (0x[0-9a-f]{16})$", re.M)
QEMU_USER = ["qemu-alpha", "-cpu", "ev56"]
SPAWNING = {"init", "manyproc", "parallel4"}


def run(command, timeout=300, check_status=0):
    done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    if check_status is not None and done.returncode != check_status:
        raise AssertionError(f"{' '.join(command)}: exit {done.returncode} (expected "
                             f"{check_status})\n{done.stdout}{done.stderr}")
    return done


def checksums(text):
    """name -> value; a name printed twice with different values fails."""
    found = {}
    for name, value in CHECKSUM.findall(text):
        if found.get(name, value) != value:
            raise AssertionError(f"checksum {name} printed twice: {found[name]} and {value}")
        found[name] = value
    return found


def cmd_compare(native_dir, alpha_dir, program, *args):
    if shutil.which(QEMU_USER[0]) is None:
        print("qemu-alpha (Debian package qemu-user) is not installed")
        return SKIP
    native = run([os.path.join(native_dir, program), *args], check_status=None)
    alpha = run(QEMU_USER + [os.path.join(alpha_dir, program), *args], check_status=None)
    label = " ".join([program, *args])
    want, got = checksums(native.stdout), checksums(alpha.stdout)
    # shortlived and parallel4's children report their result in the exit status.
    if program == "shortlived":
        expect(1 <= native.returncode <= 127, f"native {label} exit status {native.returncode}")
    else:
        if "--child" not in args:
            expect(native.returncode == 0, f"native {label} exits 0")
        expect(len(want) >= 1, f"native {label} printed checksum lines {want}")
    expect(alpha.returncode == native.returncode,
           f"qemu-alpha {label} exit status {alpha.returncode} == native")
    expect(got == want, f"qemu-alpha {label} checksums {got} == native {want}")
    # The other lines (sizes, counts) are deterministic too.
    expect(alpha.stdout == native.stdout, f"the whole output agrees ({len(native.stdout)} bytes)")
    return 0


def parse_mix(path):
    """The programs a mix script runs: [(path, args, background)]."""
    lines = []
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words and words[0] == "!":  # a run expected to fail (init.c)
                words = words[1:]
            if words and words[0] != "wait":
                lines.append(words[0])
    return lines


def cmd_native_init(native_dir, mix_dir):
    init = os.path.join(native_dir, "init")
    mixes = sorted(f for f in os.listdir(mix_dir) if f.endswith(".mix"))
    expect("default.mix" in mixes and len(mixes) >= 9, f"mix files {mixes}")
    # control.mix drives the DCPI driver (dcpictl): it only means something in
    # the guest (tests/guest/e2e_run.py control).
    # real.mix runs Alpha Linux programs that dcpi run --mix real adds to the
    # initrd (tests/linux/real_mix.py checks it against qemu-alpha).
    for mix in (m for m in mixes if m not in ("control.mix", "real.mix")):
        if mix == "rttest.mix":  # its data file is in the initrd only (runtime test)
            continue
        path = os.path.join(mix_dir, mix)
        out = run([init, path], timeout=600).stdout
        progs = [os.path.basename(p) for p in parse_mix(path)]
        reports = re.findall(r"^init: (\S+) pid (\d+) exit (\d+)$", out, re.M)
        expect(sorted(r[0] for r in reports) == sorted(progs),
               f"{mix}: init reported every child {progs}")
        expect(all(r[2] == "0" for r in reports), f"{mix}: every child exited 0")
        expect(len({r[1] for r in reports}) == len(reports), f"{mix}: distinct pids")
        expect(out.rstrip().endswith("init: done"), f"{mix}: init: done at the end")
        sums = checksums(out)
        for prog in progs:
            if prog != "rttest":
                expect(prog in sums, f"{mix}: checksum line of {prog}")
        if mix == "default.mix":
            expect({f"parallel4.{k}" for k in range(4)} <= set(sums), "parallel4 children ran")
            expect("manyproc: 56 children, 56 distinct pids, 0 failures" in out,
                   "manyproc ran 56 children with distinct pids")
            expect(progs.index("copy") < progs.index("matmul"), "mix order")

    # Failure reporting: a child that fails, one that cannot be spawned,
    # background children collected by `wait` and at the end.
    bad = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"dcpi-init-test-{os.getpid()}.mix")
    with open(bad, "w") as f:
        f.write("# failing mix\n/bin/callpal bogus\n/bin/no-such-program\n"
                "/bin/shortlived 3 &\n/bin/shortlived 0&\nwait\n/bin/shortlived\n")
    try:
        done = run([init, bad], check_status=1)
    finally:
        os.unlink(bad)
    out = done.stdout
    expect(re.search(r"^init: callpal pid \d+ exit 2$", out, re.M), "a failing child is reported")
    expect("init: /bin/no-such-program spawn failed" in out, "a spawn failure is reported")
    expect(len(re.findall(r"^init: shortlived pid \d+ exit \d+$", out, re.M)) == 3,
           "background children are reaped by wait")
    expect("init: 5 failed" in out and out.rstrip().endswith("init: done"),
           "init counts the failures and exits 1")
    # "! PROGRAM": a failure the script expects (control.mix's refused event)
    # is reported as such and does not fail init.
    with open(bad, "w") as f:
        f.write("! /bin/callpal bogus\n")
    try:
        out = run([init, bad], check_status=0).stdout
    finally:
        os.unlink(bad)
    expect(re.search(r"^init: callpal pid \d+ exit 2 \(expected failure\)$", out, re.M) and
           "init: 0 failed" in out, "an expected failure is reported and not counted")
    missing = run([init, "/no/such.mix"], check_status=1).stdout
    expect("init: cannot open /no/such.mix" in missing, "a missing script is reported")
    return 0


def cmd_runtime(native_dir, alpha_dir, data_file):
    size = str(os.path.getsize(data_file))
    for name, prefix in (("native", [os.path.join(native_dir, "rttest")]),
                         ("qemu-alpha", QEMU_USER + [os.path.join(alpha_dir, "rttest")])):
        if name == "qemu-alpha" and shutil.which(QEMU_USER[0]) is None:
            print("qemu-alpha not installed")
            return SKIP
        out = run(prefix + [data_file, size]).stdout
        m = re.search(r"^rttest: ok (\d+) checks$", out, re.M)
        expect(m and int(m.group(1)) >= 40 and "FAIL" not in out, f"{name}: rttest passes: {out.strip()!r}")
        expect("rttest: write" in out, f"{name}: write(1) reached stdout")
        spawn = "rttest: spawn not supported" if name == "qemu-alpha" else "rttest: spawn ok"
        expect(spawn in out, f"{name}: {spawn}")
        run(prefix + [data_file, size, "42"], check_status=42)
        print(f"ok: {name}: exit status 42 passes through _exit")
        # The test can fail: a wrong size is caught by fstat and read.
        bad = run(prefix + [data_file, str(int(size) + 1)], check_status=1).stdout
        expect("rttest: FAIL" in bad and "st_size" in bad, f"{name}: a wrong size is detected")
    return 0


def read_newc(path):
    """The entries of a newc cpio archive: name -> (mode, data)."""
    entries = {}
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0
    while True:
        header = blob[pos:pos + 110]
        expect_magic = header[:6]
        if expect_magic != b"070701":
            raise AssertionError(f"bad newc magic {expect_magic!r} at offset {pos}")
        fields = [int(header[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, filesize, namesize = fields[1], fields[6], fields[11]
        name = blob[pos + 110:pos + 110 + namesize - 1].decode()
        pos = (pos + 110 + namesize + 3) & ~3
        data = blob[pos:pos + filesize]
        pos = (pos + filesize + 3) & ~3
        if name == "TRAILER!!!":
            return entries
        entries[name] = (mode, data)


def cmd_initrd(initrd, alpha_dir, mix_dir):
    entries = read_newc(initrd)
    programs = ["copy", "stream", "compress", "matmul", "mathcall", "callpal", "shortlived",
                "manyproc", "parallel4", "init", "rttest", "bytecode"]
    for prog in programs:
        name = f"bin/{prog}"
        expect(name in entries, f"{name} is in the initrd")
        mode, data = entries[name]
        expect(mode & 0o170000 == 0o100000 and mode & 0o111, f"{name} is an executable file")
        expect(data[:4] == b"\x7fELF" and data[18:20] == b"\x26\x90", f"{name} is an Alpha ELF")
        note = run(["alpha-linux-gnu-readelf", "-n", os.path.join(alpha_dir, prog)]).stdout
        m = re.search(r"Build ID: ([0-9a-f]+)", note)
        expect(m is not None, f"{prog} has a build-id")
        expect(bytes.fromhex(m.group(1)) in data, f"{name} carries the same build-id")
        headers = run(["alpha-linux-gnu-readelf", "-lh", os.path.join(alpha_dir, prog)]).stdout
        expect("INTERP" not in headers and "DYNAMIC" not in headers and "EXEC" in headers,
               f"{prog} is statically linked")
    mixes = sorted(f for f in os.listdir(mix_dir) if f.endswith(".mix"))
    for mix in mixes:
        expect(f"etc/{mix}" in entries, f"/etc/{mix} is in the initrd")
        text = entries[f"etc/{mix}"][1].decode()
        with open(os.path.join(mix_dir, mix)) as f:
            expect(f.read() == text, f"/etc/{mix} is the source file")
        if mix == "real.mix":  # its programs come with dcpi run --mix real (build/mixes/real)
            continue
        for path in parse_mix(os.path.join(mix_dir, mix)):
            expect(path.startswith("/bin/") and path[1:] in entries, f"{mix}: {path} exists")
    return 0


def cmd_guest(build_dir, native_dir, cpus, mix):
    from support import qemu_run
    guest = os.path.join(build_dir, "guest")
    files = GuestFiles(guest)
    palcode, kernel, initrd = files.palcode, files.kernel, files.initrd
    mix_source = os.path.join(HERE, "..", "..", "workloads", "mix", os.path.basename(mix))
    self_test = "rttest" in mix  # its data file exists only in the initrd
    want = {} if self_test else checksums(
        run([os.path.join(native_dir, "init"), mix_source], timeout=600).stdout)

    qemu_run.use_build(guest)
    # The kernel runs /bin/init with the script named by script= (see
    # workloads/README.md).
    command = qemu_run.qemu_command(palcode, kernel, int(cpus), f"init=/bin/init script={mix}", initrd=initrd)
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
    lines, finished = [], threading.Event()

    def reader():
        for line in process.stdout:
            lines.append(line.replace("\r", ""))
            if line.startswith("init: done") or "DCPI-READY" in line:
                break
        finished.set()

    threading.Thread(target=reader, daemon=True).start()
    finished.wait(600)
    process.kill()
    process.wait()
    console = "".join(lines)
    if not re.search(r"^init: ", console, re.M):
        print(console[-2000:])
        print("skipped: the kernel did not start /bin/init (no process support yet)")
        return SKIP
    print(console)
    expect("init: done" in console, "init ran the whole mix")
    expect("init: 0 failed" in console, "every child exited 0")
    if self_test:
        expect(re.search(r"^rttest: ok \d+ checks$", console, re.M), "rttest passes in the guest")
        expect("rttest: spawn ok" in console, "spawn and wait4 work in the guest")
    got = checksums(console)
    for name, value in sorted(want.items()):
        expect(got.get(name) == value, f"guest checksum {name} {got.get(name)} == native {value}")
    return 0


# The DCPI paper's Figure 2 (seed 000 §3.2), its 13 instructions as printed.
FIGURE_2 = """ldq t4,0(t1)
addq t0,0x4,t0
ldq t5,8(t1)
ldq t6,16(t1)
ldq a0,24(t1)
lda t1,32(t1)
stq t4,0(t2)
cmpult t0,v0,t4
stq t5,8(t2)
stq t6,16(t2)
stq a0,24(t2)
lda t2,32(t2)
bne t4,LOOP""".splitlines()


def cmd_fig2(alpha_dir):
    """fig2copy's hot block is Figure 2's, instruction for instruction, and
    16-byte aligned like the paper's 0x009810 (binutils' objdump, not ours)."""
    listing = run(["alpha-linux-gnu-objdump", "-d", "--no-show-raw-insn",
                   os.path.join(alpha_dir, "fig2copy")]).stdout
    body = listing.split("<copy_fig2>:", 1)[1].split("\n\n", 1)[0]
    lines = [line.split("\t", 1) for line in body.strip().splitlines()]
    code = [(int(addr.strip().rstrip(":"), 16), re.sub(r"\s+", " ", text.strip()))
            for addr, text in lines]
    start = next(i for i, (_, text) in enumerate(code) if text == FIGURE_2[0])
    block = code[start:start + len(FIGURE_2)]
    loop = block[0][0]
    expect(loop % 16 == 0, f"the block starts 16-byte aligned (0x{loop:x})")
    for (addr, text), paper in zip(block, FIGURE_2):
        paper = paper.replace("LOOP", f"{loop:x}")
        text = re.sub(r" <[^>]*>$", "", text)
        expect(text == paper, f"0x{addr:x}: {text} is Figure 2's {paper}")
    expect(len(block) == 13, "13 instructions, as in Figure 2")
    return 0


def main():
    commands = {"compare": cmd_compare, "native-init": cmd_native_init, "runtime": cmd_runtime,
                "initrd": cmd_initrd, "guest": cmd_guest, "fig2": cmd_fig2}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__)
        return 2
    try:
        return commands[sys.argv[1]](*sys.argv[2:])
    except (AssertionError, subprocess.TimeoutExpired) as e:
        print(f"FAIL: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
