"""What every Python test and benchmark needs: checks, a build's files, the
guest ELFs' symbols (alpha-linux-gnu-nm) and a chi-square goodness of fit."""
import math
import os
import re
import subprocess
import tempfile

NM = "alpha-linux-gnu-nm"
FIRMWARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "firmware")


def event_period_mean():
    """Counter 2's mean sampling period in events: the driver draws each
    uniformly in [EV5_EVENT_PERIOD_BASE, + EV5_EVENT_PERIOD_RANGE), read from
    firmware/ev5_counters.h so that no test keeps its own copy."""
    with open(os.path.join(FIRMWARE, "ev5_counters.h")) as f:
        text = f.read()
    value = {name: int(re.search(rf"#define {name} (\d+)", text).group(1))
             for name in ("EV5_EVENT_PERIOD_BASE", "EV5_EVENT_PERIOD_RANGE")}
    return value["EV5_EVENT_PERIOD_BASE"] + (value["EV5_EVENT_PERIOD_RANGE"] - 1) / 2


# --- Checks: "ok: ..." for each one that holds, then stop or go on. -------

def expect(condition, message):
    """Stops the test at the first failed check (AssertionError)."""
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


class Checks:
    """Goes on after a failed check and remembers it: `FAILED: ...`, and the
    script exits non-zero at the end (`exit_code()`)."""

    def __init__(self):
        self.failures = []

    def expect(self, condition, message):
        print("ok:" if condition else "FAILED:", message, flush=True)
        if not condition:
            self.failures.append(message)

    def exit_code(self):
        return 1 if self.failures else 0


# --- A build's files. -----------------------------------------------------

def dcpi_binary(build):
    """The dcpi of the build directory `build`."""
    return os.path.join(build, "dcpi")


def run_dcpi(build, *args, timeout=900):
    """`dcpi ARGS` of the build; its stdout, or AssertionError with the exit
    status and the end of stderr."""
    done = subprocess.run([dcpi_binary(build), *args], capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)}: exit {done.returncode}: {done.stderr[-800:]}")
    return done.stdout


def profileme_rows(build, db, image, procedure):
    """`dcpi profileme --json` of one procedure: the mean interval S and its
    rows by instruction address."""
    import json
    report = json.loads(run_dcpi(build, "profileme", "--db", db, "--image", image,
                                 "--procedure", procedure, "--json", timeout=300))
    return report["interval"], {int(r["address"], 16): r for r in report["rows"]}


class GuestFiles:
    """The files QEMU boots, in a build's guest/ directory."""

    def __init__(self, guest):
        self.dir = guest
        self.palcode = os.path.join(guest, "palcode", "palcode.elf")
        self.kernel = os.path.join(guest, "kernel", "kernel.elf")
        self.initrd = os.path.join(guest, "workloads", "initrd.cpio")

    def workload(self, name):
        """The unstripped ELF of a workload program (/bin/<name> in the initrd)."""
        return os.path.join(self.dir, "workloads", name)


# --- Symbols of a guest ELF. ----------------------------------------------

def nm(elf, demangle=False, dynamic=False):
    """Every defined symbol of `elf` as (address, size or None, type letter,
    name), in `nm -S` order; `demangle` gives C++ names (`nm -C`), `dynamic`
    the dynamic symbol table of a shared library (`nm -D`)."""
    command = [NM, "-S", "--defined-only", *(["-C"] if demangle else []),
               *(["-D"] if dynamic else []), elf]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        fields = line.split(None, 2)
        if len(fields) < 3:
            continue
        address, size = int(fields[0], 16), None
        # A sized symbol has its size, zero-padded, before its one-letter type.
        if len(fields[1]) > 1:
            size, fields = int(fields[1], 16), [fields[0], *fields[2].split(None, 1)]
            if len(fields) < 3:
                continue
        rows.append((address, size, fields[1], fields[2]))
    return rows


def symbols(elf):
    """{name: address} of every defined symbol of `elf`."""
    return {name: address for address, _, _, name in nm(elf)}


def symbol(elf, name):
    """The address of symbol `name` in `elf`; a failed check if it has none."""
    for address, _, _, symbol_name in nm(elf):
        if symbol_name == name:
            return address
    raise AssertionError(f"no symbol {name} in {elf}")


def dynamic_symbol(library, name):
    """The address of `name` (any symbol version) in a shared library's
    dynamic symbol table, or None."""
    for address, _, _, symbol_name in nm(library, dynamic=True):
        if symbol_name.split("@")[0] == name:
            return address
    return None


def symbol_range(elf, name):
    """[start, end) of function `name` in `elf`, also under a suffix GCC
    gives a local copy (`name.constprop.0`, `name.part.0`)."""
    for address, size, _, symbol_name in nm(elf):
        if size is not None and symbol_name.split(".")[0] == name:
            return address, address + size
    raise AssertionError(f"{name} not in {elf}")


# --- Goodness of fit. -----------------------------------------------------

# A chi-square quantile (Wilson–Hilferty); z = 3.29 is the 0.9995 normal quantile.
Z_SIGNIFICANCE = 3.29


def chi_square_critical(dof, z=Z_SIGNIFICANCE):
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def chi_square(observed, expected):
    """Pearson's statistic. A bin the model says is empty (expected 0) adds
    nothing while it is empty and makes the fit fail (infinity) as soon as
    it is not: dropping such bins, as one of the two copies this replaces
    did, would let samples land where the model allows none and still pass;
    dividing by 0, as the other did, crashes. Degrees of freedom count only
    the bins with expected > 0."""
    total = 0.0
    for o, e in zip(observed, expected):
        if e > 0:
            total += (o - e) ** 2 / e
        elif o != 0:
            return math.inf
    return total


def placement_bound(placement, floor=1.25):
    """The largest placement ratio (dcpi score's `placement` or an
    `event_placement` entry) a run may show: the oracle's `floor` (issue 25)
    or an ideal sampler's distance plus 4 of its spreads at that sample
    count (the project's 4 sigma), as a ratio. Its 95th percentile, used
    before, fails an ideal sampler one kernel layout in twenty by
    construction (bytecode's pcmispredict 1.61 against a p95 of 1.43;
    compress's dmiss 1.275 against 1.27 after session 24's driver change)."""
    noise = placement.get("noise_distance", 0)
    four_sigma = (noise + 4 * placement.get("noise_spread", 0)) / noise if noise > 0 else 0
    return max(floor, four_sigma)


def in_work_dir(main, keep=None):
    """main(directory) in `keep` (created; its files kept for a second look,
    and reused by scripts that skip a run whose files exist) or in a
    temporary directory; returns what main returned."""
    if keep:
        os.makedirs(keep, exist_ok=True)
        return main(keep)
    with tempfile.TemporaryDirectory() as tmp:
        return main(tmp)
