#!/usr/bin/env python3
"""End to end through `dcpi run` (issue 5): QEMU boots the workloads, the
host pulls the transfer ring over the GDB stub into a profile database.

  e2e_run.py BUILD_DIR copy     the copy workload on 1 CPU: the database holds
                                exactly the samples the driver delivered, the
                                copy program is the hottest user image, and
                                `dcpi db check` passes
  e2e_run.py BUILD_DIR serial   the copy case over the serial transport (COM2)
  e2e_run.py BUILD_DIR control  the control path from a user program: a new
                                period (recorded as a change in the first epoch),
                                a new epoch, an uncountable event refused
  e2e_run.py BUILD_DIR period   the copy workload at a non-default period
                                (--period 8192 --period-range 1024): the database
                                records it and dcpi calc uses it
  e2e_run.py BUILD_DIR errors   usage and environment errors: uncountable
                                events, bad options, missing images, a GDB port
                                already in use, an unwritable or locked database
  e2e_run.py BUILD_DIR killed   QEMU killed mid-run: dcpi run fails clearly,
                                the database is consistent and keeps what was
                                pulled before the kill
  e2e_run.py BUILD_DIR signals  dcpi run itself stopped (issue 18): SIGTERM and
                                SIGINT store what was pulled, stop QEMU, say so
                                and exit 128 + the signal; after SIGKILL QEMU
                                dies too (PR_SET_PDEATHSIG)
  e2e_run.py BUILD_DIR serial_killed  QEMU killed mid-run over the serial
                                transport: an error, as with the GDB transport
  e2e_run.py BUILD_DIR panic    a guest kernel panic: exit 1 at once, the reason
  e2e_run.py BUILD_DIR failures a failing workload (issue 16): an unknown mix, a
                                missing program, a non-zero exit each fail dcpi
                                run (exit 1) with the reason; an unprofiled run
                                leaves no empty epoch; the summary gives the
                                workload's own cycles (the kernel's "init ran")
"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from support.common import Checks, dcpi_binary

BUILD, CASE = sys.argv[1], sys.argv[2]
DCPI = dcpi_binary(BUILD)
CHECKS = Checks()
expect = CHECKS.expect


def db_show(db):
    return subprocess.run([DCPI, "db", "show", db], capture_output=True, text=True).stdout


def image_samples(show_text):
    return {m[1]: int(m[2]) for m in re.finditer(r"cycles (\S+) \[[0-9a-f]*\]: (\d+) samples", show_text)}


def case_copy(db, extra=(), cpus="1"):
    db += '-"quoted"\\'  # --json stays valid JSON (issue 18)
    done = subprocess.run([DCPI, "run", "--workloads", "copy", "--cpus", cpus, "--db", db, "--json",
                           *extra], capture_output=True, text=True, timeout=600)
    expect(done.returncode == 0, f"dcpi run exits 0 ({done.stderr[-300:]!r})")
    summary = json.loads(done.stdout)
    expect(summary["database"] == db, "the JSON summary names the database, quotes escaped")
    console = done.stderr
    expect("checksum copy 0xcb24511ba819bfb9" in console, "the copy workload ran to its checksum")
    interrupts = sum(int(n) for n in re.findall(r"cpu \d interrupts (\d+)", console))
    dropped = sum(int(n) for n in re.findall(r"cpu \d interrupts .* dropped (\d+)", console))
    expect(interrupts > 1000, f"the driver delivered {interrupts} samples")
    expect(summary["samples"] == interrupts - dropped and dropped == 0,
           f"database samples {summary['samples']} = delivered {interrupts} - dropped {dropped}")
    expect(summary["records_rejected"] == 0 and summary["records_lost"] == 0,
           "no transfer record rejected or lost")
    expect(summary["unknown_samples"] * 2000 <= summary["samples"], "unknown samples < 0.05 %")
    shown = db_show(db)
    images = image_samples(shown)
    # Issue 14: every epoch records the machine it ran on (default qemu).
    machines = re.findall(r"^epoch \d+: .*, machine (\w+)$", shown, flags=re.M)
    expect(machines and set(machines) == {"qemu"}, f"each epoch records machine qemu ({machines})")
    user = {k: v for k, v in images.items() if k.startswith("/bin/")}
    expect(max(user, key=user.get) == "/bin/copy", f"/bin/copy is the hottest user image {user}")
    expect(sum(images.values()) == summary["samples"], "per-image totals add up to the run's samples")
    check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True)
    expect(check.returncode == 0, f"dcpi db check passes: {check.stdout.strip()}")
    # No --images (issue 16): dcpi run recorded where its images are.
    prof = subprocess.run([DCPI, "prof", "--db", db, "--json"], capture_output=True, text=True)
    rows = json.loads(prof.stdout)["rows"] if prof.returncode == 0 else []
    user_rows = [r for r in rows if r["image_path"].startswith("/bin/")]
    expect(user_rows and user_rows[0]["procedure"].startswith("copy_loop"),
           f"dcpi prof with no --images puts the copy loop on top of the user procedures "
           f"({[(r['procedure'], r['samples']) for r in user_rows[:3]]})")
    named = [r for r in rows if "+0x" not in r["procedure"] and r["image_path"] != "[unknown]"]
    expect(sum(r["samples"] for r in named) * 100 >= 99 * summary["samples"],
           f"procedures named for >= 99 % of the samples, kernel and PALcode included "
           f"({prof.stderr.strip()[:300]!r})")
    cached = os.listdir(os.environ["DCPI_BUILDID_DIR"])
    expect(len(cached) >= 3, f"the booted images are in the build-id cache ({len(cached)})")


def epoch_meta(db):
    """Every epoch.meta of the database as {epoch: {key: value}} (cpu lines left out)."""
    metas = {}
    for name in sorted(os.listdir(db)):
        if name.startswith("epoch-"):
            with open(os.path.join(db, name, "epoch.meta")) as f:
                pairs = [line.split() for line in f]
            metas[int(name[6:])] = {p[0]: p[1] for p in pairs if len(p) == 2}
    return metas


def case_period(db):
    """A non-default period goes from the kernel command line into epoch.meta
    (through the kStats records), `dcpi stats` and `dcpi calc`."""
    done = subprocess.run([DCPI, "run", "--workloads", "copy", "--cpus", "1", "--period", "8192",
                           "--period-range", "1024", "--db", db, "--json"],
                          capture_output=True, text=True, timeout=600)
    expect(done.returncode == 0, f"dcpi run exits 0 ({done.stderr[-300:]!r})")
    metas = epoch_meta(db)
    expect(len(metas) == 1, f"one epoch ({sorted(metas)})")
    for epoch, meta in metas.items():
        got = (meta.get("period_base"), meta.get("period_range"), meta.get("period_changed"))
        expect(got == ("8192", "1024", "0"),
               f"epoch {epoch}: epoch.meta says period_base 8192, period_range 1024, "
               f"period_changed 0 ({got})")
    stats = subprocess.run([DCPI, "stats", "--db", db, "--epochs", "each", "--json"],
                           capture_output=True, text=True)
    periods = [p for s in json.loads(stats.stdout)["sets"] for p in s["periods"]] \
        if stats.returncode == 0 else []
    expect([(p["base"], p["range"], p["changed"], p["mean"]) for p in periods] ==
           [(8192, 1024, False, 8703.5)], f"dcpi stats --json shows the period ({periods})")
    copy_elf = os.path.join(BUILD, "guest", "workloads", "copy")
    calc = subprocess.run([DCPI, "calc", "--db", db, "--image", copy_elf, "--procedure",
                           "copy_loop", "--json"], capture_output=True, text=True)
    report = json.loads(calc.stdout) if calc.returncode == 0 else {}
    expect(report.get("period") == 8703.5 and report.get("period_source") == "recorded",
           f"dcpi calc uses the recorded mean period 8192 + 1023/2 "
           f"({report.get('period')}, {report.get('period_source')})")
    # copy_loop's body runs N x REPS = 2,000,000 x 20 times (workloads/copy.c):
    # F x period must find that within 3/sqrt(S), which the default period
    # (7.3 times too long) would miss by far.
    hot = max(report.get("classes", []), key=lambda c: c["samples"], default=None)
    if hot is None or not hot["executions"]:
        expect(False, "calc reports the copy loop's class")
        return
    error = hot["executions"] / 40_000_000 - 1
    bound = 3 / hot["samples"] ** 0.5
    expect(abs(error) <= bound, f"copy loop: {hot['executions']:.0f} estimated executions vs "
           f"40000000, error {100 * error:+.2f}% (bound {100 * bound:.2f}%)")


def case_serial(db):
    """The same through the second transport: records on COM2."""
    case_copy(db, ("--transport", "serial"), cpus="2")


def case_control(db):
    """The control path from a user program (dcpictl, system call 1001)."""
    done = subprocess.run([DCPI, "run", "--db", db, "--mix", "control", "--cpus", "1"],
                          capture_output=True, text=True, timeout=600)
    console = done.stderr + done.stdout  # the system's lines, then the programs' (issue 30)
    expect(done.returncode == 0, f"the mix succeeds: its refused event is an expected failure "
           f"({console.strip()[-300:]!r})")
    expect("dcpictl: epoch: ok" in console, "a user program starts a new epoch")
    expect("dcpictl: events: refused: the machine cannot count that event" in console,
           "an uncountable event is refused, not faked")
    expect("dcpictl: events: ok" in console and "dcpictl: flush: ok" in console,
           "cycles with mux and a flush are accepted")
    # The summary ends with the command to type next (issue 16): it works as printed.
    nexts = [line.split(": ", 2)[2] for line in done.stderr.splitlines()
             if line.startswith("dcpi run: next")]
    expect(len(nexts) == 1 and nexts[0].startswith("dcpi prof --db "),
           f"dcpi run names the next command ({nexts})")
    if nexts:
        prof = subprocess.run([DCPI, *shlex.split(nexts[0])[1:]], capture_output=True, text=True)
        expect(prof.returncode == 0 and "copy_loop" in prof.stdout,
               f"the printed command runs and finds copy's symbols ({prof.stderr[-200:]!r})")
    text = db_show(db)
    epochs = re.split(r"^epoch ", text, flags=re.M)[1:]
    expect(len(epochs) == 2, f"two epochs in the database ({len(epochs)})")
    if len(epochs) == 2:
        first, second = image_samples(epochs[0]), image_samples(epochs[1])
        expect("/bin/copy" in first and "/bin/matmul" not in first, "copy ran in the first epoch")
        expect("/bin/matmul" in second and "/bin/copy" not in second,
               "matmul ran in the second epoch")
    # dcpictl period 8192 1024 ran after copy in the first epoch: that epoch
    # saw two periods and says so; the second saw only the new one.
    metas = epoch_meta(db)
    got = [(m.get("period_base"), m.get("period_range"), m.get("period_changed"))
           for _, m in sorted(metas.items())]
    expect(got == [("8192", str(65536 - 8192), "1"), ("8192", "1024", "0")],
           f"epoch periods: the first changed within [8192, 65536), the second 8192 + 1024 ({got})")


def qemu_children(parent):
    out = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(parent)],
                         capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if "qemu" in line]


def case_killed(db):
    run = subprocess.Popen([DCPI, "run", "--cpus", "2", "--db", db, "--interval", "0.2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines = []
    reader = threading.Thread(target=lambda: err_lines.extend(run.stderr), daemon=True)
    reader.start()
    deadline = time.time() + 120
    while time.time() < deadline and not any("samples stored" in l and not " 0 samples" in l
                                             for l in err_lines):
        time.sleep(0.2)
    victims = qemu_children(run.pid)
    expect(len(victims) == 1, "dcpi run started one QEMU")
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    run.wait(timeout=60)
    reader.join(timeout=10)  # the only reader of stderr: it sees the final error line
    stderr = "".join(err_lines)
    expect(run.returncode == 1, f"dcpi run exits 1 when QEMU dies (got {run.returncode})")
    expect("QEMU killed by signal 9 before the workload finished" in stderr,
           "the error says QEMU died and why")
    stored = re.findall(r"(\d+) samples stored", stderr)
    pulled = int(stored[-1]) if stored else 0
    images = image_samples(db_show(db))
    expect(pulled > 0 and sum(images.values()) >= pulled,
           f"the database keeps the {pulled} samples pulled before the kill ({sum(images.values())})")
    check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True)
    expect(check.returncode == 0, f"dcpi db check passes after the kill: {check.stdout.strip()}")


def start_run(db, *extra, ready=None):
    """dcpi run on the default mix, returned once `ready(stderr lines)` holds
    (default: a progress line with samples stored)."""
    run = subprocess.Popen([DCPI, "run", "--cpus", "1", "--db", db, "--interval", "0.2", *extra],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    threading.Thread(target=lambda: lines.extend(run.stderr), daemon=True).start()
    ready = ready or (lambda ls: any("samples stored" in l and " 0 samples" not in l for l in ls))
    deadline = time.time() + 120
    while time.time() < deadline and not ready(lines) and run.poll() is None:
        time.sleep(0.2)
    return run, lines


def gone(pid, seconds):
    """True once `pid` has exited (a zombie counts) within `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(")")[-1].split()[0] in "ZX":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def case_signals(db):
    for number, name in ((signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "SIGINT")):
        run, lines = start_run(db)
        victims = qemu_children(run.pid)
        expect(len(victims) == 1, f"{name}: dcpi run started one QEMU")
        run.send_signal(number)
        run.wait(timeout=30)
        time.sleep(0.3)
        stderr = "".join(lines)
        expect(run.returncode == 128 + number,
               f"{name}: dcpi run exits {128 + number} (got {run.returncode})")
        expect(f"interrupted by {name}; QEMU stopped" in stderr and "samples pulled before it are "
               "stored in" in stderr, f"{name}: says it stopped and what it stored "
               f"({stderr.strip()[-200:]!r})")
        expect(all(gone(pid, 5) for pid in victims), f"{name}: QEMU does not outlive dcpi")
        check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True)
        expect(check.returncode == 0, f"{name}: dcpi db check passes: {check.stdout.strip()}")
    run, _ = start_run(db)
    victims = qemu_children(run.pid)
    run.kill()
    run.wait(timeout=10)
    expect(victims and all(gone(pid, 5) for pid in victims), "SIGKILL: QEMU dies with dcpi run")
    check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True)
    # A kill in the middle of a write leaves its temporary file (the data
    # are whole: files are renamed into place); check names it, --repair
    # removes it. Anything else is a real problem.
    problems = [line for line in check.stdout.splitlines() if line.startswith("problem:")]
    if check.returncode != 0 and problems and all("leftover temporary file" in line
                                                  for line in problems):
        repair = subprocess.run([DCPI, "db", "check", "--repair", db], capture_output=True,
                                text=True)
        expect(repair.returncode == 0, f"SIGKILL: dcpi db check --repair: {repair.stdout.strip()}")
        check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True)
    expect(check.returncode == 0, f"SIGKILL: dcpi db check passes: {check.stdout.strip()}")


def case_serial_killed(db):
    def stored(_):
        return any(name.endswith(".prof") for _, _, names in os.walk(db) for name in names)
    run, lines = start_run(db, "--transport", "serial", ready=stored)
    victims = qemu_children(run.pid)
    expect(len(victims) == 1, "dcpi run started one QEMU")
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    run.wait(timeout=60)
    time.sleep(0.3)
    stderr = "".join(lines)
    expect(run.returncode == 1, f"serial: dcpi run exits 1 when QEMU dies (got {run.returncode})")
    expect("QEMU killed by signal 9 before the workload finished" in stderr,
           f"serial: the error says QEMU died ({stderr.strip()[-200:]!r})")
    expect("samples (" not in stderr + run.stdout.read(), "serial: no success summary")


def case_panic(db):
    start = time.time()
    done = run_dcpi("--db", db, "--append", "init=/bin/no-such-program", "--timeout", "200")
    expect(done.returncode == 1 and "the guest kernel panicked" in done.stderr and
           "cannot start init" in done.stderr,
           f"a kernel panic: exit 1 with the panic line ({done.stderr.strip()[-300:]!r})")
    expect(time.time() - start < 60, f"at once, not at the timeout ({time.time() - start:.0f} s)")


def case_failures(db):
    for args, reason in (
            (["--mix", "nosuch"], "init cannot read the workload script /etc/nosuch.mix"),
            (["--workloads", "nosuch"], "/bin/nosuch could not be started"),
            (["--workloads", "dcpictl"], r"dcpictl \(pid \d+\) exited with status [1-9]"),  # its usage
    ):
        done = run_dcpi("--db", db, "--cpus", "1", *args)
        pattern = "dcpi run: the workload failed: " + (reason if "\\" in reason else re.escape(reason))
        expect(done.returncode == 1 and re.search(pattern, done.stderr),
               f"dcpi run {' '.join(args)}: exit 1, '{reason}' ({done.stderr.strip()[-300:]!r})")
    shutil.rmtree(db, ignore_errors=True)
    done = run_dcpi("--db", db, "--cpus", "1", "--workloads", "copy", "--no-profile")
    expect(done.returncode == 0 and "no samples" in done.stderr,
           f"an unprofiled run succeeds and says it stored nothing ({done.stderr.strip()!r})")
    expect(db_show(db).strip() == "", f"no empty epoch is left behind ({db_show(db)!r})")
    done = run_dcpi("--db", db, "--cpus", "1", "--workloads", "copy", "--json")
    summary = json.loads(done.stdout) if done.returncode == 0 else {}
    expect(summary.get("epoch_base") == 1 and summary.get("workload_failures") == [],
           f"the next run is epoch 1 and did not fail ({done.stdout[-300:]!r})")
    # The workload's cycles are the kernel's count, spawn to exit of init;
    # the guest's clock at the last pull is later (it idles until stopped).
    console = subprocess.run([DCPI, "run", "--db", db, "--cpus", "1", "--workloads", "copy"],
                             capture_output=True, text=True, timeout=600)
    ran = re.search(r"init ran (\d+) cycles", console.stderr)
    said = re.search(r"in (\d+) workload cycles", console.stderr)  # the summary's stream
    expect(ran and said and ran[1] == said[1],
           f"the summary's workload cycles are init's ({ran and ran[1]} vs {said and said[1]})")
    # (The guest clock read at the last pull may be before init's exit or long
    # after it, when the guest idled: it is no measure of the workload.)
    expect(summary.get("workload_cycles", 0) > 0,
           f"the JSON summary has workload_cycles ({summary.get('workload_cycles')})")


def run_dcpi(*args, timeout=120):
    return subprocess.run([DCPI, "run", "--quiet", *args], capture_output=True, text=True,
                          timeout=timeout)


def case_not_built_yet(db):
    """A build configured but not built (issue 31: the first ./run.sh skips the ev5 QEMU and
    the real mix): dcpi run names the target to build."""
    build = db + "-configured"
    os.makedirs(os.path.join(build, "qemu"))
    os.makedirs(os.path.join(build, "mixes"))
    os.symlink(os.path.join(BUILD, "guest"), os.path.join(build, "guest"))
    os.symlink(build + "/missing", os.path.join(build, "qemu", "qemu-system-alpha-ev5"))
    shutil.copy(os.path.join(BUILD, "qemu", "libdcpi_ev5.so"), os.path.join(build, "qemu"))
    os.symlink(build + "/missing", os.path.join(build, "mixes", "real"))
    for args, target in ((["--machine", "ev5", "--workloads", "copy"], "ev5-qemu"),
                         (["--mix", "real"], "real-programs")):
        done = run_dcpi("--db", db, "--build", build, *args)
        expect(done.returncode == 1 and "not built yet" in done.stderr and
               f"--target {target}" in done.stderr,
               f"dcpi run {' '.join(args)} before {target} is built: names it "
               f"({done.stderr.strip()!r})")
    # The qemu machine's truth on several CPUs needs the patched QEMU too
    # (Debian's gives the plug-in the CPU that translated a block).
    shutil.copy(os.path.join(BUILD, "qemu", "libdcpi_exec_counts.so"), os.path.join(build, "qemu"))
    done = run_dcpi("--db", db, "--build", build, "--cpus", "2", "--workloads", "copy",
                    "--truth", db + ".truth")
    expect(done.returncode == 1 and "--truth on 2 CPUs needs our patched" in done.stderr and
           "--target ev5-qemu" in done.stderr,
           f"dcpi run --truth on 2 CPUs without the patched QEMU names ev5-qemu "
           f"({done.stderr.strip()!r})")
    # ./run.sh builds only the target dcpi-run: the ev5 plug-in may be missing while
    # the QEMU is there (built by an earlier version); configured with the machine,
    # dcpi run names ev5-qemu, which builds the plug-in too.
    build = db + "-no-plugin"
    os.makedirs(os.path.join(build, "qemu"))
    os.symlink(os.path.join(BUILD, "guest"), os.path.join(build, "guest"))
    os.symlink(os.path.join(BUILD, "qemu", "qemu-system-alpha-ev5"),
               os.path.join(build, "qemu", "qemu-system-alpha-ev5"))
    with open(os.path.join(build, "CMakeCache.txt"), "w") as cache:
        cache.write("DCPI_EV5:BOOL=ON\n")
    done = run_dcpi("--db", db, "--build", build, "--machine", "ev5", "--workloads", "copy")
    expect(done.returncode == 1 and "21164 model plugin, not built yet" in done.stderr and
           "--target ev5-qemu" in done.stderr,
           f"dcpi run --machine ev5 without libdcpi_ev5.so names ev5-qemu ({done.stderr.strip()!r})")


def case_errors(db):
    import socket
    for args, code, text in (
            (["--events", "dmiss"], 2, "cannot count 'dmiss'"),
            (["--events", "bogus"], 2, "unknown event 'bogus'"),
            (["--cpus", "5"], 2, "--cpus must be a number from 1 to 4"),
            (["--mix", "../etc"], 2, "--mix takes a mix name"),
            (["--period", "70000"], 2, "--period must be a number"),
            (["--kernel", "/nonexistent.elf"], 1, "kernel (-kernel) not found"),
            (["--machine", "ev6"], 2, "--machine is qemu or ev5, not 'ev6'"),
            (["--truth", "a,b"], 2, "--truth takes a file name without commas"),
            (["--model", "memory_bus=80"], 2, "--model sets the ev5 machine's parameters"),
            (["--machine", "ev5", "--model", "memory_bus"], 2,
             "--model takes NAME=NUMBER items separated by commas, not 'memory_bus'"),
            (["--machine", "ev5", "--cpus", "1", "--workloads", "copy", "--model", "bogus=1"], 1,
             "ev5: unknown argument bogus=1"),
            # the ev5 machine without our QEMU build: says what to build
            (["--machine", "ev5", "--build", db + "-empty"], 1, "qemu/machine/build-qemu.sh"),
    ):
        done = run_dcpi("--db", db, *args)
        expect(done.returncode == code and text in done.stderr,
               f"dcpi run {' '.join(args)}: exit {code}, says '{text}' ({done.stderr.strip()!r})")
    case_not_built_yet(db)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run_dcpi("--db", db, "--workloads", "copy", "--cpus", "1", "--gdb-port", str(port))
        expect(done.returncode == 1 and "QEMU exited" in done.stderr and
               "Address already in use" in done.stderr,
               f"a GDB port in use: clear error ({done.stderr.strip()[-200:]!r})")
    os.makedirs(db, exist_ok=True)
    os.chmod(db, 0o500)
    if os.geteuid() != 0:  # root writes anyway
        done = run_dcpi("--db", os.path.join(db, "sub"), "--workloads", "copy")
        expect(done.returncode == 1, "unwritable database directory: exit 1")
    os.chmod(db, 0o700)
    with open(os.path.join(db, "FORMAT"), "w") as f:
        f.write("dcpi profile database 1\n")
    import fcntl
    with open(os.path.join(db, "LOCK"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = run_dcpi("--db", db, "--workloads", "copy", "--cpus", "1")
        expect(done.returncode == 1 and "lock" in done.stderr.lower(),
               f"a database locked by another writer: clear error ({done.stderr.strip()!r})")
        expect(not qemu_children(os.getpid()), "no QEMU left behind")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")  # not the user's cache
        {"copy": case_copy, "killed": case_killed, "signals": case_signals,
         "serial_killed": case_serial_killed, "panic": case_panic, "errors": case_errors,
         "failures": case_failures, "serial": case_serial, "control": case_control,
         "period": case_period}[CASE](os.path.join(tmp, "db"))
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
