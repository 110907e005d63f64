"""How QEMU is started for DCPI: one place for the machine arguments.

DESIGN §3: clipper (DP264/Typhoon), our PALcode as -bios, our kernel as
-kernel, and `-icount shift=2,sleep=off` so that every guest instruction
advances the virtual clock by exactly 4 ns (the cycle counter counts
instructions, the counter ALARM fires after an exact instruction count and
runs are deterministic).
"""
import os
import shutil
import socket
import subprocess

QEMU = "qemu-system-alpha"


class BootError(Exception):
    """A problem starting the guest, worded for one line on stderr."""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_inputs(palcode, kernel):
    if shutil.which(QEMU) is None:
        raise BootError(f"{QEMU} is not installed (run toolchain/install-deps.sh)")
    for role, path in (("PALcode (-bios)", palcode), ("kernel (-kernel)", kernel)):
        if not os.path.isfile(path):
            raise BootError(f"{role} not found: {path}")
        with open(path, "rb") as f:
            header = f.read(20)
        if header[:4] != b"\x7fELF" or header[18:20] != b"\x26\x90":  # EM_ALPHA = 0x9026
            raise BootError(f"{role} is not an Alpha ELF file: {path}")


def qemu_command(palcode, kernel, cpus=1, append="", memory_mb=256, gdb_port=None,
                 initrd=None, serial2_port=None):
    """The same argv as the host tools' dcpi::qemu::qemu_command (qemu/machine_config.cpp);
    tests/unit/qemu_machine_test.cpp checks that the two agree."""
    command = [
        QEMU, "-M", "clipper", "-smp", str(cpus), "-m", str(memory_mb),
        "-icount", "shift=2,sleep=off",
        "-vga", "none", "-nic", "none", "-display", "none",
        "-monitor", "none", "-serial", "stdio", "-no-reboot",
        "-bios", palcode, "-kernel", kernel,
    ]
    if serial2_port is not None:
        command += ["-serial", f"tcp:127.0.0.1:{serial2_port}"]
    if initrd:
        command += ["-initrd", initrd]
    if append:
        command += ["-append", append]
    if gdb_port is not None:
        command += ["-gdb", f"tcp:127.0.0.1:{gdb_port}"]
    return command


def run_to_completion(palcode, kernel, cpus=1, append="", timeout=300):
    """Boots, waits for the guest to power off, returns its console text."""
    check_inputs(palcode, kernel)
    command = qemu_command(palcode, kernel, cpus, append)
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise BootError(f"guest did not finish within {timeout} s") from e
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise BootError(f"QEMU failed (exit {done.returncode}): {message}")
    return done.stdout.replace("\r\n", "\n")
