"""What the guest tests of dcpi calc share (tests/guest/calc_copy.py,
calc_switch.py, calc_bytecode.py, ev5_truth.py; tests/bench/bench_calc_accuracy.py):
boot one workload on 1 CPU under the exec_counts plugin (exact counts, our
dcpix) with QEMU's GDB stub, pull the profile with `dcpi ingest` after
DCPI-DONE, quit QEMU (SIGTERM: the plugin writes its file at exit), and
compare a calc report's frequency classes with the exact counts."""
import contextlib
import json
import math
import statistics
import os
import signal
import subprocess
import tempfile
import threading

from support import qemu_run  # QEMU argv from dcpi run --print-qemu-command
from support import truth_file
from support.common import GuestFiles, dcpi_binary

MIN_SAMPLES = 100
SIGMAS = 3.0


class Guest:
    def __init__(self, build):
        files = GuestFiles(os.path.join(build, "guest"))
        self.guest = files.dir
        self.palcode, self.kernel, self.initrd = files.palcode, files.kernel, files.initrd
        self.dcpi_path = dcpi_binary(build)
        qemu_run.use_build(self.guest)

    def dcpi(self, *args):
        done = subprocess.run([self.dcpi_path, *args], capture_output=True, text=True,
                              timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"dcpi {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def profile_with_exact_counts(self, plugin, append, db, counts_path):
        """Boots with `append`, ingests into `db` after DCPI-DONE; returns the
        console text and the plugin's exact counts {pc: executions} (None if
        the plugin wrote nothing)."""
        port = qemu_run.free_port()
        command = qemu_run.qemu_command(self.palcode, self.kernel, 1, append, gdb_port=port,
                                        initrd=self.initrd,
                                        plugin=f"file={plugin},out={counts_path}")
        qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        try:
            console = wait_for(qemu, "DCPI-DONE", 240)
            if "DCPI-DONE" in console:
                ingest = json.loads(self.dcpi("ingest", "--gdb", f"127.0.0.1:{port}", "--kernel",
                                              self.kernel, "--db", db, "--json"))
                print("ingest:", json.dumps(ingest)[:300])
        finally:
            qemu.send_signal(signal.SIGTERM)
            try:
                qemu.wait(30)
            except subprocess.TimeoutExpired:
                qemu.kill()
                qemu.wait()
        return console, read_counts(counts_path) if os.path.isfile(counts_path) else None


@contextlib.contextmanager
def work_files(keep_dir=None):
    """(database, counts file) paths in a temporary directory, or in
    `keep_dir` (kept for a look afterwards)."""
    with tempfile.TemporaryDirectory() as tmp:
        if keep_dir:
            tmp = keep_dir
            os.makedirs(tmp, exist_ok=True)
        yield os.path.join(tmp, "db"), os.path.join(tmp, "counts.txt")


def wait_for(process, marker, timeout):
    seen, done = [], threading.Event()

    def reader():
        for line in process.stdout:
            seen.append(line)
            if marker in line:
                done.set()
        done.set()

    threading.Thread(target=reader, daemon=True).start()
    done.wait(timeout)
    return "".join(seen)


def read_counts(path):
    return truth_file.read(path).instructions


def family_sigmas(classes):
    """The bound, in sigmas, for each of `classes` checks made together: as
    likely to be crossed by chance by one of them as SIGMAS is by a single
    check (Bonferroni). 3 sigmas on each of 17 classes fails 4.5 % of
    correct runs; a run is deterministic, so a build that moves the sampling
    draws could fail forever on noise alone."""
    if classes <= 1:
        return SIGMAS
    alone = 2 * (1 - statistics.NormalDist().cdf(SIGMAS))
    return statistics.NormalDist().inv_cdf(1 - alone / (2 * classes))


def checked_classes(report, exact):
    """The report's frequency classes with >= MIN_SAMPLES samples, each with
    its estimated and exact executions, the relative error and the bound
    family_sigmas(k)/sqrt(S) (a binomial draw of S samples; k classes checked).

    The exact count of a class is that of its instructions that ran: every
    instruction of a class runs equally often, so an instruction that never
    ran (alignment padding merged into a block, issue 17) must not pull the
    average down along with the estimate it diluted; such an instruction
    outside a padding block makes the error infinite, so the check fails."""
    period = report["period"]
    checked = [c for c in report["classes"]
               if c["samples"] >= MIN_SAMPLES and c["frequency"] is not None]
    sigmas = family_sigmas(len(checked))
    for c in checked:
        blocks = [report["blocks"][b] for b in c["blocks"]]
        addresses = [int(i["address"], 16) for b in blocks for i in b["instructions"]]
        ran = [exact.get(a, 0) for a in addresses if exact.get(a, 0) > 0]
        idle = [a for b in blocks if not b.get("padding")
                for a in (int(i["address"], 16) for i in b["instructions"])
                if exact.get(a, 0) == 0]
        truth = sum(ran) / len(ran) if ran else 0
        estimate = c["frequency"] * period
        error = estimate / truth - 1 if truth and not idle else float("inf")
        yield c, addresses, estimate, truth, error, sigmas / math.sqrt(c["samples"])
