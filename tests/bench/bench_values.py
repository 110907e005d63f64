#!/usr/bin/env python3
"""Value-sampling overhead in exact guest instructions (seed 001 Table 2).

Runs a workload with `dcpi run --cpus 1` (QEMU icount: one cycle = one
instruction, deterministic) with profiling off, plain DCPI, and value
sampling N/k (interpret N instructions on every k-th interrupt): Table 2 (a)
4 at 1/2 without and with context, (b) 8/16/32 at 1/2, (c) equal averages
8 at 1/4 ... 64 at 1/32; then 4 at 1/2 on several workloads and their mean. The
kernel prints the cycles init ran, spawn to exit ("init ran C cycles"), so
overhead = (C_config - C_base) / C_base exactly; reported against plain DCPI
(the cost of value sampling) and against no profiling (total).

Usage: bench_values.py BUILD_DIR [--workload mathcall] [--smoke] [--json FILE]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import dcpi_binary

parser = argparse.ArgumentParser()
parser.add_argument("build")
parser.add_argument("--workload", default="mathcall")
parser.add_argument("--smoke", action="store_true")
parser.add_argument("--json")
args = parser.parse_args()
DCPI = dcpi_binary(args.build)
OTHER_WORKLOADS = ["mathcall", "compress", "matmul", "copy", "stream"]

# (name, --values, --values-capture): Table 2 (a) no vprof / vprof / vprof
# with context, (b) longer runs at 1/2, (c) equal averages.
CONFIGS = [("off", None, None), ("dcpi", None, None), ("4 at 1/2", "4/2", None)]
if not args.smoke:
    CONFIGS += [("4 at 1/2 ctx", "4/2", "ctx"),
                ("8 at 1/2", "8/2", None), ("16 at 1/2", "16/2", None), ("32 at 1/2", "32/2", None),
                ("8 at 1/4", "8/4", None), ("16 at 1/8", "16/8", None),
                ("32 at 1/16", "32/16", None), ("64 at 1/32", "64/32", None)]


def run(name, values, capture, workload=None):
    with tempfile.TemporaryDirectory() as tmp:
        command = [DCPI, "run", "--workloads", workload or args.workload, "--cpus", "1",
                   "--db", os.path.join(tmp, "db")]
        if name == "off":
            command.append("--no-profile")
        if values:
            command += ["--values", values]
        if capture:
            command += ["--values-capture", capture]
        result = subprocess.run(command, capture_output=True, text=True, timeout=900)
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
        done = re.search(r"init ran (\d+) cycles", result.stderr)
        stats = re.search(r"value runs (\d+) interpreted (\d+).*tuples (\d+) tuples_dropped (\d+)",
                          result.stderr)
        if not done:
            sys.exit(f"no 'init ran ... cycles' line from {name}")
        row = {"config": name, "values": values, "capture": capture,
               "cycles": int(done.group(1))}
        if stats:
            row.update(runs=int(stats.group(1)), interpreted=int(stats.group(2)),
                       tuples=int(stats.group(3)), tuples_dropped=int(stats.group(4)))
        return row


rows = [run(*config) for config in CONFIGS]
off = rows[0]["cycles"]
base = rows[1]["cycles"]
print(f"Value-sampling overhead, {args.workload} on 1 CPU (exact guest instructions, icount)")
print(f"{'config':>12} {'cycles':>13} {'vs DCPI':>9} {'vs off':>9} {'runs':>8} "
      f"{'insns/run':>9} {'dropped':>9}")
for row in rows:
    row["overhead_vs_dcpi"] = (row["cycles"] - base) / base
    row["overhead_vs_off"] = (row["cycles"] - off) / off
    runs = row.get("runs", 0)
    per_run = (row["cycles"] - base) / runs if runs else 0
    row["added_insns_per_run"] = per_run
    print(f"{row['config']:>12} {row['cycles']:>13} {100 * row['overhead_vs_dcpi']:>8.2f}% "
          f"{100 * row['overhead_vs_off']:>8.2f}% {runs:>8} {per_run:>9.0f} "
          f"{row.get('tuples_dropped', 0):>9}")
# Table 2 averages over benchmarks: 4 at 1/2 on the other user workloads too.
per_workload = []
if not args.smoke:
    print("\n4 at 1/2 by workload (1 CPU)")
    print(f"{'workload':>12} {'dcpi cycles':>13} {'4 at 1/2':>13} {'vs DCPI':>9}")
    for workload in [args.workload] + [w for w in OTHER_WORKLOADS if w != args.workload]:
        plain = run("dcpi", None, None, workload)["cycles"]
        vprof = run("4 at 1/2", "4/2", None, workload)["cycles"]
        per_workload.append({"workload": workload, "dcpi": plain, "values_4_2": vprof,
                             "overhead_vs_dcpi": (vprof - plain) / plain})
        print(f"{workload:>12} {plain:>13} {vprof:>13} {100 * (vprof - plain) / plain:>8.2f}%")
    mean = sum(w["overhead_vs_dcpi"] for w in per_workload) / len(per_workload)
    print(f"{'mean':>12} {'':>13} {'':>13} {100 * mean:>8.2f}%")
if args.json:
    with open(args.json, "w") as out:
        json.dump({"workload": args.workload, "rows": rows, "by_workload": per_workload}, out,
                  indent=1)

# Sanity that could fail: sampling costs something, and value sampling more.
ok = rows[1]["cycles"] > off and rows[2]["cycles"] > base and rows[2]["runs"] > 0
target = rows[2]["overhead_vs_dcpi"] <= 0.03
print(f"4 at 1/2 overhead {100 * rows[2]['overhead_vs_dcpi']:.2f}% vs DCPI "
      f"({'within' if target else 'ABOVE'} the 3 % target)")
sys.exit(0 if ok else 1)
