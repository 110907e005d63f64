#!/usr/bin/env python3
"""Benchmark: what DCPI's event configurations cost on the ev5 machine
(issue 26: "--events mux costs <= 1 % on 1 CPU"; DCPI §5 Table IV reports
the mux configuration's slowdown, 3.0 +/- 0.7 % on SPECint95, against
1.0-1.8 % for cycles alone).

Per workload, `dcpi run --machine ev5 --cpus N` three times: with the
profiler off (`--no-profile`), sampling cycles (the default), and with
`--events mux` (counter 0 cycles, counter 2 rotating IMISS, DMISS and
BRANCHMP at every counter-0 interrupt, an interrupt every 256 events).
Slowdown = elapsed guest cycles of the whole workload (init spawned to init
exited) profiled over unprofiled. On the ev5 machine one run is
deterministic on 1 CPU (icount; the model's time), so each figure is an
exact count of the extra cycles the handler, the event interrupts, the
daemon and their cache and TLB footprint cost, not a timing. On 4 CPUs
round-robin ordering varies from run to run; those rows are one run each.

Usage: bench_mux.py BUILD [--workloads copy,...] [--cpus 1] [--json FILE]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import dcpi_binary

WORKLOADS = ["copy", "stream", "compress", "matmul", "mathcall"]
CONFIGS = {"off": ["--no-profile"], "cycles": [], "mux": ["--events", "mux"]}


def elapsed(dcpi, workload, cpus, config):
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([dcpi, "run", "--machine", "ev5", "--workloads", workload, "--cpus",
                               str(cpus), "--db", os.path.join(tmp, "db"), *CONFIGS[config]],
                              capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"dcpi run {workload} ({config}) failed: {done.stderr[-500:]}")
    samples = sum(int(n) for n in re.findall(r"ring records \d+ samples (\d+)", done.stderr))
    return int(re.search(r"init ran (\d+) cycles", done.stderr).group(1)), samples


def measure(dcpi, workload, cpus):
    row = {"workload": workload, "cpus": cpus}
    for config in CONFIGS:
        row[f"{config}_cycles"], row[f"{config}_samples"] = elapsed(dcpi, workload, cpus, config)
    for config in ("cycles", "mux"):
        row[f"{config}_slowdown_percent"] = (
            100.0 * (row[f"{config}_cycles"] - row["off_cycles"]) / row["off_cycles"])
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--cpus", default="1")
    parser.add_argument("--json", help="write the table as JSON here")
    args = parser.parse_args()
    dcpi = dcpi_binary(args.build)
    rows = [measure(dcpi, w, int(c)) for c in args.cpus.split(",")
            for w in args.workloads.split(",") if w]
    print(f"{'workload':<10} {'cpus':>4} {'unprofiled cycles':>18} {'cycles':>8} {'mux':>8}"
          f" {'samples (cycles)':>16} {'samples (mux)':>13}")
    for r in rows:
        print(f"{r['workload']:<10} {r['cpus']:>4} {r['off_cycles']:>18} "
              f"{r['cycles_slowdown_percent']:>7.3f}% {r['mux_slowdown_percent']:>7.3f}% "
              f"{r['cycles_samples']:>16} {r['mux_samples']:>13}")
    print("ev5 machine (the 21164 model's cycles); slowdowns are exact guest cycle counts of the "
          "same workload with the profiler off and on (1 CPU: deterministic).")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": "ev5", "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
