#!/usr/bin/env python3
"""Cost of sampled call chains (issue 28 item 2) in exact guest cycles.

Runs each workload (and the default mix) with `dcpi run --cpus 1` on the
qemu machine (icount: one cycle = one instruction, deterministic) with plain
DCPI and with -g at the default period. The kernel prints the cycles init
ran, spawn to exit ("init ran C cycles"), so the extra cost of chains is
(C_g - C_dcpi) / C_dcpi exactly. Also: the handler's RPCC cycles per
interrupt (epoch.meta handler_cycles / interrupts), the chain samples kept
and lost, and the database size with and without chains (the issue's goals:
<= 1 % extra time, <= 2x the database on the default mix).

Usage: bench_chains.py BUILD_DIR [--smoke] [--json FILE] [--stack-bytes N]
                        [--real-mix] [--only NAME,NAME]
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
parser.add_argument("--smoke", action="store_true")
parser.add_argument("--json")
parser.add_argument("--stack-bytes", type=int, default=16384)  # dcpi run -g's default
# The real mix (lua, bzip2, xz, sqlite3, ...; needs the real-programs target):
# bzip2's 10 KB frame is what a larger slice costs (issue 28).
parser.add_argument("--real-mix", action="store_true")
# Seconds between the host's pulls of the transfer ring: a deep program's
# slices can fill the ring between two pulls, and the chain samples that
# wait then are lost (counted), which also makes -g look cheaper.
parser.add_argument("--interval", default="0.5")
parser.add_argument("--only", help="comma-separated workload names (e.g. 'default mix')")
args = parser.parse_args()
DCPI = dcpi_binary(args.build)
WORKLOADS = [("compress", ["--workloads", "compress"])]
if not args.smoke:
    WORKLOADS += [("matmul", ["--workloads", "matmul"]), ("mathcall", ["--workloads", "mathcall"]),
                  ("default mix", ["--mix", "default"]),
                  # Kernel frames (issue 28 item 2): a program that spends
                  # most of its time in system calls, so most samples are
                  # kernel-mode ones carrying a kernel slice and a user part.
                  ("kernel_calls", ["--", os.path.join(args.build, "tests", "linux",
                                                       "kernel_calls")])]
if args.real_mix:
    WORKLOADS.append(("real mix", ["--mix", "real"]))
if args.only:
    WORKLOADS = [w for w in WORKLOADS if w[0] in args.only.split(",")]


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(root, name))
               for root, _, files in os.walk(path) for name in files)


def meta_stats(db):
    handler = interrupts = 0
    for root, _, files in os.walk(db):
        if "epoch.meta" in files:
            for line in open(os.path.join(root, "epoch.meta")):
                words = line.split()
                if len(words) == 4 and words[0] == "cpu" and words[2] == "handler_cycles":
                    handler += int(words[3])
                if len(words) == 4 and words[0] == "cpu" and words[2] == "interrupts":
                    interrupts += int(words[3])
    return handler, interrupts


def run(selection, chains):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "db")
        command = [DCPI, "run", "--cpus", "1", "--db", db, "--interval", args.interval]
        if chains:
            command += ["-g", "--stack-bytes", str(args.stack_bytes)]
        command += selection  # last: a program's "--" ends the options
        result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
        done = re.search(r"init ran (\d+) cycles", result.stderr)
        if not done:
            sys.exit(f"no 'init ran ... cycles' line from {' '.join(command)}")
        kept = re.search(r"(\d+) call chains \((\d+) nodes\)", result.stderr)
        handler, interrupts = meta_stats(db)
        chains_file = sum(os.path.getsize(os.path.join(r, "chains.cct"))
                          for r, _, f in os.walk(db) if "chains.cct" in f)
        lost = re.search(r"(\d+) more lost in the guest", subprocess.run(
            [DCPI, "tree", "--db", db, "--sampled"], capture_output=True, text=True).stdout)
        return {"cycles": int(done.group(1)), "chains_lost": int(lost.group(1)) if lost else 0, "handler_per_interrupt": handler / max(interrupts, 1),
                "interrupts": interrupts, "db_bytes": directory_bytes(db),
                "chains_bytes": chains_file,
                "chains": int(kept.group(1)) if kept else 0,
                "nodes": int(kept.group(2)) if kept else 0}


rows = []
for name, selection in WORKLOADS:
    off, on = run(selection, False), run(selection, True)
    rows.append({"workload": name, "dcpi": off, "chains": on,
                 "extra": (on["cycles"] - off["cycles"]) / off["cycles"],
                 "db_growth": on["db_bytes"] / off["db_bytes"]})

print(f"Sampled call chains (-g, {args.stack_bytes} bytes of stack), 1 CPU, default period, "
      "qemu machine (exact guest cycles)\n")
print(f"{'workload':<12} {'cycles dcpi':>14} {'cycles -g':>14} {'extra':>7} "
      f"{'handler/int':>12} {'chains':>7} {'lost':>6} {'nodes':>6} {'db x':>6}")
for r in rows:
    print(f"{r['workload']:<12} {r['dcpi']['cycles']:>14} {r['chains']['cycles']:>14} "
          f"{100 * r['extra']:>6.2f}% {r['dcpi']['handler_per_interrupt']:>5.0f}/"
          f"{r['chains']['handler_per_interrupt']:<6.0f} {r['chains']['chains']:>7} "
          f"{r['chains']['chains_lost']:>6} "
          f"{r['chains']['nodes']:>6} {r['db_growth']:>6.2f}")
print("\ngoals: extra <= 1 %, database growth <= 2x (default mix)")
if args.json:
    with open(args.json, "w") as out:
        json.dump({"stack_bytes": args.stack_bytes, "interval": args.interval, "rows": rows}, out,
                  indent=1)

# Sanity that could fail: chains cost something, and every chain was kept or counted.
bad = [r["workload"] for r in rows if r["extra"] <= 0 or r["chains"]["chains"] == 0]
sys.exit(f"no cost or no chains measured for {bad}" if bad else 0)
