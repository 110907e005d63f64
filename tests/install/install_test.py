#!/usr/bin/env python3
"""`cmake --install` (issue 16, install.cmake): dcpi, its guest files, the
plug-ins, the docs and the man pages land under a prefix, and the installed
dcpi, run from another directory, boots from the prefix.

  install_test.py BUILD_DIR
"""
import os
import shlex
import subprocess
import sys
import tempfile

from support.common import Checks

BUILD = sys.argv[1]
CHECKS = Checks()
expect = CHECKS.expect


def main():
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        done = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix],
                              capture_output=True, text=True)
        expect(done.returncode == 0, f"cmake --install exits 0 ({done.stderr.strip()[-300:]!r})")
        dcpi = os.path.join(prefix, "bin", "dcpi")
        elsewhere = os.path.join(tmp, "elsewhere")
        os.makedirs(elsewhere)
        printed = subprocess.run([dcpi, "run", "--cpus", "1", "--print-qemu-command"],
                                 capture_output=True, text=True, cwd=elsewhere)
        expect(printed.returncode == 0, f"the installed dcpi finds its guest files "
               f"({printed.stderr.strip()!r})")
        argv = shlex.split(printed.stdout)
        guest = os.path.join(prefix, "share", "dcpi", "guest")
        for flag, path in (("-bios", "palcode/palcode.elf"), ("-kernel", "kernel/kernel.elf"),
                           ("-initrd", "workloads/initrd.cpio")):
            given = argv[argv.index(flag) + 1] if flag in argv else ""
            expect(given == os.path.join(guest, path) and os.path.isfile(given),
                   f"{flag} is the installed {path} ({given})")
        expect(os.path.isfile(os.path.join(guest, "workloads", "copy")),
               "the unstripped workloads are beside the initrd (the reports' debug copies)")
        module = os.path.join(prefix, "lib", "dcpi", "libdcpi_values_address.so")
        loaded = subprocess.run([dcpi, "run", "--values", "4/2", "--values-module", module,
                                 "--print-qemu-command"], capture_output=True, text=True,
                                cwd=elsewhere)
        expect(loaded.returncode == 0 and "vcapture=" in loaded.stdout,
               f"the installed plug-in loads ({loaded.stderr.strip()!r})")
        expect(os.path.isfile(os.path.join(prefix, "lib", "dcpi", "libdcpi_exec_counts.so")),
               "the exec_counts QEMU plug-in is installed")
        expect(os.path.isfile(os.path.join(prefix, "share", "doc", "dcpi", "docs", "profile-db.md")),
               "the docs are installed")
        man1 = os.path.join(prefix, "share", "man", "man1")
        page = subprocess.run(["man", "-l", os.path.join(man1, "dcpi.1")], capture_output=True,
                              text=True, env=dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING=""))
        expect(page.returncode == 0 and all(c in page.stdout for c in
                                            ("run", "prof", "list", "calc", "merge")),
               "man -l dcpi.1 renders and names the subcommands")
        run_page = subprocess.run(["man", "-l", os.path.join(man1, "dcpi-run.1")],
                                  capture_output=True, text=True)
        expect(run_page.returncode == 0 and "--period" in run_page.stdout.replace("\u2010", "-"),
               "man -l dcpi-run.1 documents dcpi run's options")
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
