#!/usr/bin/env python3
"""DCPI Tables IV and VI for our machine (issue 4): for every bundled
workload on 1 and 4 CPUs, `dcpi run` it with the profiler off
(`--no-profile`) and on, and report

  slowdown      elapsed guest cycles of the whole workload (init spawned to
                init exited), profiled over unprofiled. Under -icount one cycle
                is 4 ns of virtual time and the run is deterministic, so this is
                an exact count of the extra work, not a timing;
  miss rate     hash-table misses / interrupts (DCPI Table VI);
  samples/entry samples handed to the daemon per entry handed over (the
                aggregation factor, DCPI §5.2);
  db ratio      bytes of the profiled images (the ELF files the database's
                profiles belong to) over bytes of the database (issue 5: >= 10x);
  hit / miss    handler instructions from PAL entry to return, from the
                driver microbenchmark (tests/bench/results.json, bench_driver.py).

The real mix (lua, bzip2, minigzip from Debian sources, BUILD/mixes/real) is
a row too when it was built ("real" in --mixes); its images are the programs,
their libraries and the cross glibc's.

Usage: bench_workloads.py BUILD_DIR [--workloads a,b] [--mixes real] [--cpus 1,4] [--json FILE]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from support.common import dcpi_binary

WORKLOADS = ["copy", "stream", "compress", "matmul", "mathcall", "callpal", "manyproc",
             "parallel4"]


SYSROOT_LIB = "/usr/alpha-linux-gnu/lib"


def image_file(build, path):
    """The ELF file of a database image path ("/bin/copy", "/lib/libz.so.1", "kernel.elf")."""
    guest = os.path.join(build, "guest")
    name = os.path.basename(path)
    real = os.path.join(build, "mixes", "real")
    for candidate in (os.path.join(guest, "workloads", name),
                      os.path.join(guest, "kernel", path), os.path.join(guest, "palcode", path),
                      os.path.join(real, "bin", name), os.path.join(real, "lib", name),
                      os.path.join(SYSROOT_LIB, name)):
        if os.path.isfile(candidate):
            return candidate
    return None


def database_ratio(dcpi, db):
    show = subprocess.run([dcpi, "db", "show", db], capture_output=True, text=True).stdout
    paths = set(re.findall(r"^\s+\S+ (\S+) \[[0-9a-f]*\]:", show, flags=re.M))
    build = os.path.dirname(dcpi)
    images = sum(os.path.getsize(f) for f in filter(None, (image_file(build, p) for p in paths)))
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(db) for f in files)
    return images / size if size else 0.0


def run(dcpi, workload, cpus, profile):
    """workload: a program of /bin, or "mix:NAME" for --mix NAME."""
    what = ["--mix", workload[4:]] if workload.startswith("mix:") else ["--workloads", workload]
    with tempfile.TemporaryDirectory() as tmp:
        args = [dcpi, "run", *what, "--cpus", str(cpus),
                "--db", os.path.join(tmp, "db"), "--json"]
        if not profile:
            args.append("--no-profile")
        done = subprocess.run(args, capture_output=True, text=True, timeout=900)
        ratio = database_ratio(dcpi, os.path.join(tmp, "db")) if profile else 0.0
    if done.returncode != 0:
        raise RuntimeError(f"dcpi run {workload} on {cpus} CPUs failed: {done.stderr[-500:]}")
    console = done.stderr
    cycles = int(re.search(r"init ran (\d+) cycles", console).group(1))
    stats = [tuple(map(int, m)) for m in re.findall(
        r"cpu \d interrupts (\d+) hits (\d+) misses (\d+) to_daemon (\d+) dropped (\d+)", console)]
    summary = json.loads(done.stdout)
    summary["db_ratio"] = ratio
    return cycles, stats, summary


def measure(dcpi, workload, cpus):
    base, _, _ = run(dcpi, workload, cpus, False)
    profiled, stats, summary = run(dcpi, workload, cpus, True)
    interrupts = sum(s[0] for s in stats)
    misses = sum(s[2] for s in stats)
    return {
        "workload": workload, "cpus": cpus,
        "unprofiled_cycles": base, "profiled_cycles": profiled,
        "slowdown_percent": 100.0 * (profiled - base) / base,
        "interrupts": interrupts,
        "miss_rate_percent": 100.0 * misses / interrupts if interrupts else 0.0,
        "samples_per_entry": summary["samples"] / summary["entries"] if summary["entries"] else 0.0,
        "images_over_database": summary["db_ratio"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--mixes", default=None,
                        help="mixes to run as rows too (default: real, if it was built)")
    parser.add_argument("--cpus", default="1,4")
    parser.add_argument("--json", help="write the table as JSON here")
    args = parser.parse_args()
    dcpi = dcpi_binary(args.build)
    here = os.path.dirname(os.path.abspath(__file__))
    handler = {}
    try:
        with open(os.path.join(here, "results.json")) as f:
            one_cpu = [r for r in json.load(f)["after"]["results"] if r["cpus"] == 1][0]
        handler = {"hit": round(one_cpu["hit_total_insns"], 1),
                   "miss": round(one_cpu["miss_total_insns"], 1)}
    except (OSError, KeyError, ValueError):
        pass
    mixes = args.mixes
    if mixes is None:
        mixes = "real" if os.path.isdir(os.path.join(args.build, "mixes", "real", "bin")) else ""
    runs = [w for w in args.workloads.split(",") if w] + ["mix:" + m for m in mixes.split(",") if m]
    rows = [measure(dcpi, w, int(c)) for c in args.cpus.split(",") for w in runs]
    print(f"{'workload':<10} {'cpus':>4} {'slowdown':>9} {'miss rate':>9} {'samples/entry':>13}"
          f" {'interrupts':>10} {'db ratio':>8}")
    for r in rows:
        print(f"{r['workload']:<10} {r['cpus']:>4} {r['slowdown_percent']:>8.3f}%"
              f" {r['miss_rate_percent']:>8.2f}% {r['samples_per_entry']:>13.1f}"
              f" {r['interrupts']:>10} {r['images_over_database']:>7.0f}x")
    if handler:
        print(f"handler instructions, PAL entry to return (bench_driver.py): hit {handler['hit']}, "
              f"miss {handler['miss']}")
    print("QEMU counts one event (cycles = instructions under icount); slowdowns are exact "
          "guest cycle counts of the same deterministic workload with the profiler off and on.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "handler_instructions": handler}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
