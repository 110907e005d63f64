#!/usr/bin/env python3
"""The PAL offsets firmware/pal_abi.h promises (PAL_VECTOR_*, where the
counter delivery starts, where PALcode's own record restarts the count, the
wait's store of how long it slept) against the built palcode.elf, with binutils' nm
as the oracle: the ev5 model recognizes interrupts and sample deliveries by
these offsets (qemu/machine/plugins/ev5/sample_visibility.h), and the Alpha
assembler cannot check a label's offset itself (its relaxation makes label
differences non-constant).

Usage: pal_offsets.py GUEST_BUILD_DIR"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXPECTED = {  # symbol -> the macro of firmware/pal_abi.h it sits at
    "pal_interprocessor_interrupt": "PAL_VECTOR_IPI",
    "pal_clock_interrupt": "PAL_VECTOR_CLOCK",
    "pal_device_interrupt": "PAL_VECTOR_DEVICE",
    "pal_counter_delivery": "PAL_COUNTER_DELIVERY",
    "pal_counter_reload": "PAL_COUNTER_RELOAD",
    "pal_wait_slept": "PAL_WAIT_SLEPT",
    "pal_profileme_delivery": "PAL_PROFILEME_READS",
}


def main():
    elf = os.path.join(sys.argv[1], "palcode", "palcode.elf")
    with open(os.path.join(ROOT, "firmware", "pal_abi.h")) as f:
        macros = dict(re.findall(r"#define (PAL_\w+) (0x[0-9a-fA-F]+)", f.read()))
    out = subprocess.run(["alpha-linux-gnu-nm", elf], check=True, capture_output=True,
                         text=True).stdout
    symbols = {name: int(value, 16) for value, _, name in
               (line.split() for line in out.splitlines() if len(line.split()) == 3)}
    base = symbols["pal_reset"]
    failures = []
    for symbol, macro in EXPECTED.items():
        want = int(macros[macro], 16)
        got = symbols[symbol] - base
        print(f"{symbol}: {got:#x} (pal_abi.h {macro} = {want:#x})")
        if got != want:
            failures.append(f"{symbol} is at {got:#x}, firmware/pal_abi.h says {macro} {want:#x}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
