#!/usr/bin/env python3
"""Kernel frames in sampled call chains (issue 28 item 2, kernel half): with
`dcpi run -g` a kernel-mode sample is unwound with the kernel's own
.eh_frame over the kernel stack the driver copied, through the trap entry's
TrapFrame, into the user frames the system call interrupted, so one chain
reads user main ... libc wrapper, entry_system_call, handler ... kernel leaf.

kernel_calls.c spends most of its time in write(2) (from writer) and mmap
(from toucher). Checked on the sampled tree (dcpi tree --sampled --json):

  - nearly every kernel-mode sample's chain reaches a kernel entry point (a
    trap entry, a kernel thread's start, the boot entry), and hardly any
    stops in kernel code;
  - the write samples continue into writer and main through a libc frame,
    the page faults' into toucher; every step from user to kernel code goes
    through the code that holds the TrapFrame (an entry stub, trap_return);
  - dcpi db check accepts the database.

  kernel_chains.py BUILD LINUX_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary

BUILD, LINUX = sys.argv[1], sys.argv[2]
DCPI = dcpi_binary(BUILD)
CHECKS = Checks()
expect = CHECKS.expect

KERNEL_IMAGES = ("kernel.elf", "/kernel")
# The code that runs on a TrapFrame (kernel/entry.S): the entries, and
# trap_return on the way back out.
TRAP_CODE = ("entry_system_call", "entry_memory_fault", "entry_interrupt",
             "entry_instruction_fault", "entry_arithmetic", "entry_unaligned", "trap_return")
KERNEL_STARTS = TRAP_CODE + ("kernel_thread_start", "_start", "secondary_entry")


def dcpi(*args):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return done


def is_kernel(frame):
    return frame["image"].endswith(KERNEL_IMAGES)


def chains(node, path=()):
    """Every (path from the outermost frame to the leaf, samples ending there)."""
    path = path + (node,) if node["name"] != "[all]" else path
    if node["self"]["samples"]:
        yield path, node["self"]["samples"]
    for child in node.get("children", []):
        yield from chains(child, path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "kernel_calls.db")
        done = dcpi("run", "--cpus", "1", "--db", db, "-g", "--quiet", "--",
                    os.path.join(LINUX, "kernel_calls"))
        expect("kernel_calls " in done.stdout, f"kernel_calls ran: {done.stdout.strip()!r}")
        tree = json.loads(dcpi("tree", "--db", db, "--sampled", "--json",
                               "--min-percent", "0").stdout)
        plain = json.loads(dcpi("tree", "--db", db, "--json", "--min-percent", "0").stdout)
        expect(plain == tree, "with chains and no exact contexts, dcpi tree shows the chains "
               "without --sampled (as prof --callers and export do)")
        kernel = [(path, n) for path, n in chains(tree["root"]) if path and is_kernel(path[-1])]
        total = sum(n for _, n in kernel)
        expect(total >= 200, f"{total} kernel-mode samples")
        names = lambda path: [frame["name"] for frame in path]
        entered = sum(n for path, n in kernel if any(name in KERNEL_STARTS for name in names(path)))
        expect(entered >= 0.9 * total, f"{entered} of {total} kernel-mode chains "
               f"({entered / max(total, 1):.1%}) reach a kernel entry point (>= 90 %; before "
               "kernel frames, all were leaves)")
        stopped = sum(n for path, n in kernel if path[0]["name"].startswith("[truncated")
                      and len(path) > 1 and is_kernel(path[1]))
        expect(stopped <= 0.05 * total, f"{stopped} kernel-mode chains stop in kernel code "
               "(<= 5 %; the others that stop do so in user code, ld.so's start-up, whose "
               "stack can need more than a short (--stack-bytes) slice)")

        def through(caller, entry, libc):
            return sum(n for path, n in kernel
                       if caller in names(path) and "main" in names(path)
                       and entry in names(path)
                       and (not libc or any(f["image"].endswith("libc.so.6.1") for f in path)))
        writes = through("writer", "entry_system_call", True)
        faults = through("toucher", "entry_memory_fault", False)
        expect(writes >= 0.25 * total and writes >= 50,
               f"{writes} kernel-mode samples continue through entry_system_call and a "
               f"libc frame into writer and main ({writes / max(total, 1):.1%} of them)")
        expect(faults >= 20, f"{faults} kernel-mode samples continue from a page fault "
               "(entry_memory_fault: anonymous memory is demand-zero) into toucher")
        crossings = bad = 0
        for path, n in kernel:
            for outer, inner in zip(path, path[1:]):
                if not is_kernel(outer) and not outer["name"].startswith("[") \
                        and is_kernel(inner):
                    crossings += n
                    bad += n if inner["name"] not in TRAP_CODE else 0
        expect(crossings > 0 and bad == 0, f"every one of {crossings} steps from user into "
               f"kernel code is to a trap entry or trap_return ({bad} are not)")
        check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True,
                               timeout=300)
        expect(check.returncode == 0, f"dcpi db check accepts it ({check.stdout.strip()[-200:]})")
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
