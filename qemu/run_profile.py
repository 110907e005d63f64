#!/usr/bin/env python3
"""The walking skeleton's main job: boot the kernel under QEMU on N CPUs,
let it run its profiled kernel workload, then pull the per-CPU sample logs
over QEMU's GDB stub with `dcpi samples` and print samples per function.

Usage: run_profile.py --build BUILD_DIR [--cpus 4] [--samples 2000] [--json]
"""
import argparse
import os
import subprocess
import sys
import threading
import time

import machine


def wait_for_ready(process, timeout, echo):
    """Reads the guest console until DCPI-READY; returns the text seen."""
    lines = []
    done = threading.Event()

    def reader():
        for line in process.stdout:
            lines.append(line)
            if echo:
                sys.stderr.write(line)
            if "DCPI-READY" in line:
                done.set()
        done.set()

    threading.Thread(target=reader, daemon=True).start()
    if not done.wait(timeout):
        raise machine.BootError(f"guest did not become ready within {timeout} s")
    if process.poll() is not None and not any("DCPI-READY" in l for l in lines):
        raise machine.BootError(f"QEMU exited (code {process.returncode}) before the guest was ready")
    return "".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="host build directory")
    parser.add_argument("--cpus", type=int, default=4)
    parser.add_argument("--samples", type=int, default=2000, help="samples per CPU")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="do not echo the guest console")
    args = parser.parse_args()

    palcode = os.path.join(args.build, "guest", "palcode", "palcode.elf")
    kernel = os.path.join(args.build, "guest", "kernel", "kernel.elf")
    dcpi = os.path.join(args.build, "dcpi")
    try:
        machine.check_inputs(palcode, kernel)
        if not os.access(dcpi, os.X_OK):
            raise machine.BootError(f"dcpi tool not built: {dcpi}")
        port = machine.free_port()
        command = machine.qemu_command(palcode, kernel, args.cpus, f"samples={args.samples}",
                                       gdb_port=port)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace")
        try:
            started = time.monotonic()
            wait_for_ready(process, args.timeout, echo=not args.quiet)
            if not args.quiet:
                sys.stderr.write(f"guest ready after {time.monotonic() - started:.1f} s; pulling samples\n")
            report = [dcpi, "samples", "--kernel", kernel, "--palcode", palcode,
                      "--gdb", f"127.0.0.1:{port}"] + (["--json"] if args.json else [])
            return subprocess.run(report).returncode
        finally:
            process.kill()
            process.wait()
    except machine.BootError as e:
        print(f"run_profile: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
