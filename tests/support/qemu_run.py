"""How the Python tests and benchmarks start QEMU.

The command line is not built here: `dcpi run --print-qemu-command` prints
the one `dcpi run` itself would use (qemu/host/machine_config.cpp, DESIGN §3:
clipper, our PALcode as -bios, our kernel as -kernel, `-icount
shift=2,sleep=off`), so every test boots the machine the host tools boot.
This module only asks for it and runs it.
"""
import os
import shlex
import shutil
import socket
import subprocess

from support.common import dcpi_binary

# The dcpi that prints the command line; set it with use_build(GUEST).
DCPI = None
# Tests of this harness pretend QEMU is called something else.
QEMU_OVERRIDE = None


class BootError(Exception):
    """A problem starting the guest, worded for one line on stderr."""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def use_build(guest):
    """Use the dcpi of the build whose guest/ directory is `guest`."""
    global DCPI
    DCPI = dcpi_binary(os.path.dirname(os.path.abspath(guest)))


def qemu_command(palcode, kernel, cpus=1, append="", gdb_port=None, initrd=None,
                 serial2_port=None, plugin=None, machine="qemu", truth=None):
    """argv for QEMU, from `dcpi run --print-qemu-command`; raises BootError
    with dcpi's message (missing file, not an Alpha ELF, ...). machine="ev5"
    boots our patched QEMU with the 21164 model; truth=FILE asks for the
    ground truth (docs/exec-counts-format.md)."""
    if DCPI is None:
        raise BootError("qemu_run.use_build(GUEST) was not called")
    args = [DCPI, "run", "--print-qemu-command", "--palcode", palcode, "--kernel", kernel,
            "--cpus", str(cpus), f"--append={append}"]
    args += ["--initrd", initrd] if initrd is not None else ["--no-initrd"]
    args += ["--gdb-port", str(gdb_port)] if gdb_port is not None else ["--no-gdb"]
    if serial2_port is not None:
        args += ["--com2-port", str(serial2_port)]
    if plugin is not None:
        args += ["--plugin", plugin]
    args += ["--machine", machine]
    if truth is not None:
        args += ["--truth", truth]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise BootError(message.removeprefix("dcpi run: "))
    command = shlex.split(done.stdout)
    if QEMU_OVERRIDE:
        command[0] = QEMU_OVERRIDE
    if shutil.which(command[0]) is None:
        raise BootError(f"{command[0]} is not installed (run toolchain/install-deps.sh)")
    return command


def run_to_completion(palcode, kernel, cpus=1, append="", timeout=300, initrd=None,
                      machine="qemu", truth=None):
    """Boots, waits for the guest to power off, returns its console text."""
    command = qemu_command(palcode, kernel, cpus, append, initrd=initrd, machine=machine,
                           truth=truth)
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise BootError(f"guest did not finish within {timeout} s") from e
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise BootError(f"QEMU failed (exit {done.returncode}): {message}")
    return done.stdout.replace("\r\n", "\n")
