#!/usr/bin/env python3
"""Fast checks of the random-program generator, without QEMU (issue 25 item 2).

Why: the placement property test and its benchmark name programs by seed
only, so a seed must always mean the same program, different seeds must give
different programs, and every program must assemble; this is checked here in
a second, before any guest run.

Checks: generating a seed twice gives byte-identical source and feature map;
seeds differ pairwise; seeds 1..3 (the CTest's guest seeds) together hold
every feature; the programs of a few seeds compile and assemble with the stock
cross compiler (alpha-linux-gnu-gcc -O2 -c), every generated function is
defined in the object with its map's feature.

Usage: generator_check.py [SEEDS]  (default 8 seeds)
"""
import os
import subprocess
import sys
import tempfile

from ev5gen import alpha_program_generator as generator
from support.common import Checks

CHECKS = Checks()
expect = CHECKS.expect


def check_deterministic(seeds):
    for seed in seeds:
        a, b = generator.generate(seed), generator.generate(seed)
        expect(a.source == b.source and a.feature_map() == b.feature_map(),
               f"seed {seed}: the same program twice")
    sources = {generator.generate(seed).source for seed in seeds}
    expect(len(sources) == len(seeds), f"{len(seeds)} seeds give {len(sources)} programs")


def check_coverage():
    seen = set()
    for seed in (1, 2, 3):
        seen |= {f.feature for f in generator.generate(seed).functions}
    missing = set(generator.FEATURES) - seen
    expect(not missing, f"seeds 1-3 hold every feature (missing: {sorted(missing)})")


def check_assembles(seed, tmp):
    program = generator.generate(seed)
    source, obj = os.path.join(tmp, f"g{seed}.c"), os.path.join(tmp, f"g{seed}.o")
    with open(source, "w") as out:
        out.write(program.source)
    done = subprocess.run(["alpha-linux-gnu-gcc", "-O2", "-c", "-o", obj, source],
                          capture_output=True, text=True)
    expect(done.returncode == 0, f"seed {seed} assembles {done.stderr[-600:]}")
    if done.returncode:
        return
    defined = subprocess.run(["alpha-linux-gnu-nm", "--defined-only", obj], capture_output=True,
                             text=True).stdout.split()
    names = program.feature_map()["functions"]
    absent = [n for n in names if n not in defined]
    expect(not absent, f"seed {seed}: its {len(names)} functions are in the object {absent}")


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    seeds = list(range(1, count + 1))
    check_deterministic(seeds)
    check_coverage()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            check_assembles(seed, tmp)
    print(f"{len(CHECKS.failures)} failures")
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
