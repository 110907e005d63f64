#!/usr/bin/env python3
"""Benchmark: IMISS samples against I-cache misses per procedure (DCPI
Figure 10; issue 26), on the ev5 machine.

DCPI §6.3 held the IMISS samples of each procedure against dcpicalc's
I-cache stall cycles and reported correlations of 0.91, 0.86 and 0.90 (the
top, bottom and midpoint of the stall range). Here the machine knows the
truth, so each procedure's IMISS samples are held against the truth's
I-cache misses of that procedure (version 6 `pcevent ... imiss` lines) and
against its true I-cache stall cycles (`stall ... icache`). Counter 2 counts
I-cache misses alone (no rotation), an interrupt every ~4096 misses (randomized).

Per workload, `dcpi run --machine ev5 --cpus 1 --events cycles,imiss
--truth`; procedures from the images' symbols (alpha-linux-gnu-nm: the
programs, statically linked at their link addresses, their own address
spaces; the kernel, the shared lines). Printed: per workload the Pearson
correlations over the procedures with any miss or sample, and the
procedures where samples and truth differ most; nothing is thresholded.
The kernel's procedures show DCPI's high-IPL blind spot: misses in the
driver's handler (IPL 6) and PALcode are delivered, and sampled, on the
instruction the handler returns to.

Usage: bench_imiss.py BUILD [--workloads copy,compress,...] [--json FILE]
"""
import argparse
import bisect
import json
import math
import os
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import event_period_mean, nm

WORKLOADS = "copy,stream,compress,matmul,mathcall,bytecode"
PERIOD = event_period_mean()  # counter 2's mean period (firmware/ev5_counters.h)


class Procedures:
    """PC -> procedure name of one ELF (its function symbols)."""

    def __init__(self, elf):
        rows = sorted((a, s, n) for a, s, t, n in nm(elf) if s and t.lower() == "t")
        self.starts = [a for a, _, _ in rows]
        self.rows = rows

    def name(self, pc):
        i = bisect.bisect_right(self.starts, pc) - 1
        if i < 0:
            return None
        start, size, name = self.rows[i]
        return name if pc < start + size else None


def pearson(xs, ys):
    n = len(xs)
    if n < 3:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def truth_by_section(path):
    """{section: {"imiss": {pc: n}, "icache": {pc: cycles}}}, section
    "shared" or (pid, generation)."""
    out, current = {}, "shared"
    for _, kind, fields, _ in truth_file.records(path):
        if kind == "space":
            current = (int(fields[0]), int(fields[1]))
        section = out.setdefault(current, {"imiss": {}, "icache": {}})
        if kind == "pcevent" and fields[1] == "imiss":
            pc = int(fields[0], 16)
            section["imiss"][pc] = section["imiss"].get(pc, 0) + int(fields[2])
        elif kind == "stall" and fields[1] == "icache":
            pc = int(fields[0], 16)
            section["icache"][pc] = section["icache"].get(pc, 0) + int(fields[2])
    return out


def run_workload(build, workload, tmp):
    db, truth_path = os.path.join(tmp, f"{workload}.db"), os.path.join(tmp, f"{workload}.truth")
    subprocess.run([os.path.join(build, "dcpi"), "run", "--quiet", "--machine", "ev5", "--cpus",
                    "1", "--workloads", workload, "--events", "cycles,imiss", "--truth",
                    truth_path, "--db", db], check=True, capture_output=True, timeout=900)
    exported = subprocess.run([os.path.join(build, "dcpi"), "export", "--format", "json", "--db",
                               db], check=True, capture_output=True, text=True).stdout
    return json.loads(exported)["samples"], truth_file.read(truth_path), truth_path


def procedure_rows(build, workload, samples, truth, truth_path):
    """{(image, procedure): [imiss samples, true misses, true stall cycles]}."""
    images = {"kernel.elf": os.path.join(build, "guest", "kernel", "kernel.elf"),
              workload: os.path.join(build, "guest", "workloads", workload)}
    procedures = {name: Procedures(path) for name, path in images.items()}
    spaces = {(pid, gen) for pid, gen, *_, path in truth.maps
              if os.path.basename(path) == workload}
    rows = {}

    def add(image, pc, column, n):
        name = procedures[image].name(pc)
        if name:
            rows.setdefault((image, name), [0, 0, 0])[column] += n

    for s in samples:
        image = os.path.basename(s["image_path"] or "")
        if s["event"] == "imiss" and image in procedures:
            address = s["address"] if isinstance(s["address"], int) else int(s["address"], 16)
            add(image, address, 0, s["count"])
    for section, lines in truth_by_section(truth_path).items():
        image = "kernel.elf" if section == "shared" else workload if section in spaces else None
        if image is None:
            continue
        for pc, n in lines["imiss"].items():
            add(image, pc, 1, n)
        for pc, cycles in lines["icache"].items():
            add(image, pc, 2, cycles)
    return rows


def summarize(workload, rows):
    kept = {k: v for k, v in rows.items() if any(v)}
    user = {k: v for k, v in kept.items() if k[0] != "kernel.elf"}

    def correlations(table):
        xs = [v[0] * PERIOD for v in table.values()]
        return (pearson(xs, [v[1] for v in table.values()]),
                pearson(xs, [v[2] for v in table.values()]), len(table))

    every, own = correlations(kept), correlations(user)
    kernel = [v for k, v in kept.items() if k[0] == "kernel.elf"]
    return {"workload": workload, "procedures": every[2], "r_misses": every[0],
            "r_stall_cycles": every[1], "user_procedures": own[2], "user_r_misses": own[0],
            "user_r_stall_cycles": own[1],
            "kernel_samples": sum(v[0] for v in kernel),
            "kernel_misses": sum(v[1] for v in kernel),
            "worst": sorted(({"image": k[0], "procedure": k[1], "samples": v[0],
                              "misses": v[1], "stall_cycles": v[2]} for k, v in kept.items()),
                            key=lambda r: -abs(r["samples"] * PERIOD - r["misses"]))[:5]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--workloads", default=WORKLOADS)
    parser.add_argument("--json")
    options = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
        for workload in options.workloads.split(","):
            samples, truth, truth_path = run_workload(options.build, workload, tmp)
            results.append(summarize(workload, procedure_rows(options.build, workload, samples,
                                                              truth, truth_path)))
    print("IMISS samples x PERIOD per procedure against the truth (ev5 machine, 1 CPU, Pearson r)")
    print(f"{'workload':9} {'procs':>5} {'r misses':>9} {'r stalls':>9} {'user':>5} "
          f"{'r misses':>9} {'r stalls':>9} {'kernel samples xP/misses':>27}")
    for r in results:
        ratio = r["kernel_samples"] * PERIOD / r["kernel_misses"] if r["kernel_misses"] else 0
        print(f"{r['workload']:9} {r['procedures']:5} {r['r_misses']:9.3f} "
              f"{r['r_stall_cycles']:9.3f} {r['user_procedures']:5} {r['user_r_misses']:9.3f} "
              f"{r['user_r_stall_cycles']:9.3f} {ratio:27.3f}")
    for r in results:
        print(f"{r['workload']}: largest differences (samples x PERIOD vs misses):")
        for w in r["worst"]:
            print(f"    {w['image']:12} {w['procedure'][:40]:40} {w['samples'] * PERIOD:>10} "
                  f"{w['misses']:>10} {w['stall_cycles']:>12} stall cycles")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"machine": "ev5", "cpus": 1, "period": PERIOD, "results": results}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
