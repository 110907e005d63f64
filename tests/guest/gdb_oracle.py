#!/usr/bin/env python3
"""Our GDB remote-protocol client against gdb-multiarch (issue 5: "verified
against gdb-multiarch reading the same memory"). The guest runs the copy
workload and stops sampling; with the VM paused, gdb-multiarch dumps the
transfer ring (`dump binary memory`, then `disconnect`, which leaves the VM
paused), then `dcpi ingest --gdb` reads the same ring through our client.
Both databases must hold the same samples per image and the same records.

Usage: gdb_oracle.py BUILD_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from support import qemu_run  # QEMU argv from dcpi run --print-qemu-command
from support.common import Checks, GuestFiles, dcpi_binary

BUILD = sys.argv[1]
GUEST = os.path.join(BUILD, "guest")
qemu_run.use_build(GUEST)
FILES = GuestFiles(GUEST)
KERNEL, PALCODE, INITRD = FILES.kernel, FILES.palcode, FILES.initrd
DCPI = dcpi_binary(BUILD)
RING_BYTES = 64 + (2 << 20)  # TransferRingHeader + data (firmware/transfer_ring.h)
CHECKS = Checks()
expect = CHECKS.expect


def wait_for(process, marker, timeout=120):
    import select
    import time
    seen, deadline = "", time.time() + timeout
    while marker not in seen and time.time() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            chunk = os.read(process.stdout.fileno(), 4096).decode(errors="replace")
            if not chunk:
                break
            seen += chunk
    return seen


def images(db):
    text = subprocess.run([DCPI, "db", "show", db], capture_output=True, text=True).stdout
    return sorted(re.findall(r"cycles (\S+) \[[0-9a-f]*\]: (\d+) samples in (\d+) rows", text))


def main():
    if shutil.which("gdb-multiarch") is None:
        print("gdb-multiarch not installed (toolchain/install-deps.sh installs it)")
        return 1
    port = qemu_run.free_port()
    command = qemu_run.qemu_command(PALCODE, KERNEL, 1, "init=/bin/init script=copy",
                                    gdb_port=port, initrd=INITRD)
    qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        console = wait_for(qemu, "DCPI-DONE")
        expect("DCPI-DONE" in console, "the copy workload ran and the profile was flushed")
        with tempfile.TemporaryDirectory() as tmp:
            ring = os.path.join(tmp, "ring.bin")
            gdb = subprocess.run(
                ["gdb-multiarch", "-nx", "-batch", "-ex", f"file {KERNEL}",
                 "-ex", f"target remote 127.0.0.1:{port}",
                 "-ex", f"dump binary memory {ring} (char*)&dcpi_transfer_ring "
                        f"(char*)&dcpi_transfer_ring+{RING_BYTES}",
                 "-ex", "disconnect"], capture_output=True, text=True, timeout=120)
            expect(gdb.returncode == 0 and os.path.getsize(ring) == RING_BYTES,
                   f"gdb-multiarch dumped the ring ({gdb.stderr.strip()[-200:]!r})")
            via_gdb = subprocess.run([DCPI, "ingest", "--from-file", ring,
                                      "--db", os.path.join(tmp, "gdb.db"), "--json"],
                                     capture_output=True, text=True)
            via_ours = subprocess.run([DCPI, "ingest", "--gdb", f"127.0.0.1:{port}",
                                       "--kernel", KERNEL, "--db", os.path.join(tmp, "ours.db"),
                                       "--json"], capture_output=True, text=True, timeout=120)
            expect(via_gdb.returncode == 0 and via_ours.returncode == 0,
                   f"both ingests succeed ({via_gdb.stderr.strip()!r} {via_ours.stderr.strip()!r})")
            a, b = json.loads(via_gdb.stdout), json.loads(via_ours.stdout)
            expect(a["samples"] > 1000 and a == b,
                   f"the same records and samples through both clients ({a['samples']} samples)")
            expect(images(os.path.join(tmp, "gdb.db")) == images(os.path.join(tmp, "ours.db")),
                   "the same samples per image")
    finally:
        qemu.kill()
        qemu.wait()
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
