#!/usr/bin/env python3
"""ProfileMe's issue -> completion and load issue -> data latencies, the trap
bit and the latency distributions (issue 27 items 1 and 4; seed 004 Table
1), against the ev5 model's truth.

workloads/skid: a loop whose load misses every cache (the skid test's
workload), so its load -> data latency is a memory fill, beside the loop's
one-cycle adds. One run, 1 CPU, a record per INTERVAL fetched instructions
(mean), with --truth. Checks:

- every row of `dcpi profileme --json` (per instruction of walk, the
  loop's procedure): the stall distribution's buckets add up to the
  records, the load distribution's to the load records, only loads have
  load records, and a retired load record always has one (its data
  returned at least a D-cache hit's 2 cycles after its issue);
- the missing load: its pm_load_cycles x S within 3 sigma of the truth's
  summed `load_latency` at its PC, and its records' distribution puts its
  peak in the truth's peak bucket, each bucket holding >= 5 % of the truth
  within 4 sigma (binomial) of the truth's share;
- per instruction with >= 16 records, issue -> completion and load -> data
  sums x S within 4 sigma of the truth's (complete_latency, load_latency
  lines), the load's mean within 5 % of the truth's, the adds' issue ->
  completion 1 cycle per retired record; `dcpi score --json`: walk's sums
  x S within 3 sigma;
- the loaded register's reader: its slot -> issue distribution peaks in
  the truth's peak bucket (stall_log2_K lines);
- the trap bit: pm_trap x S of the program within 4 sigma of the truth's
  `trap` lines (DTB and ITB misses of its pages), on the same instructions;
- compress (a second run): every load with >= 200 load records has its
  records' share in each log2 bucket of load -> data within 4 sigma of the
  truth's share of its executions (D-cache hits, hits on a line being
  filled, S-cache and memory fills).

Usage: ev5_profileme_latency.py BUILD_DIR"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import Checks, dcpi_binary

BUILD = sys.argv[1]
DCPI = dcpi_binary(BUILD)
PROGRAM = os.path.join(BUILD, "guest", "workloads", "skid")
PASSES = 16
INTERVAL = 1024
BUCKETS = 8  # firmware/profileme.h PROFILEME_LATENCY_BUCKETS
# The trap bit's check adds runs with these seeds (dcpi run --seed).
TRAP_SEEDS = (2, 3)


def dcpi(*args):
    return subprocess.run([DCPI, *args], check=True, capture_output=True, text=True,
                          timeout=900).stdout


def the_load():
    """The ldq followed by 16 addq (ev5_skid.py's oracle: objdump)."""
    text = subprocess.run(["alpha-linux-gnu-objdump", "-d", "--no-show-raw-insn", PROGRAM],
                          capture_output=True, text=True, check=True).stdout
    lines = [(int(m.group(1), 16), m.group(2).split()[0])
             for m in re.finditer(r"^\s*([0-9a-f]+):\s+(\S.*)$", text, re.M)]
    for i, (address, mnemonic) in enumerate(lines):
        if mnemonic == "ldq" and [m for _, m in lines[i + 1:i + 17]] == ["addq"] * 16:
            return address, [a for a, _ in lines[i + 1:i + 17]]
    raise AssertionError("objdump shows no ldq followed by 16 addq in skid")


def bucket_of(cycles):
    k = 0
    while k + 1 < BUCKETS and cycles >> (k + 1):
        k += 1
    return k


def check_rows(checks, rows, loads):
    """Each instruction's distributions add up to its records (a line per
    failure, one for all that hold)."""
    wrong = []
    for row in rows:
        address = int(row["address"], 16)
        stall, load = row["stall_distribution"], row["load_distribution"]
        if len(stall) != BUCKETS + 1 or sum(stall) != row["records"]:
            wrong.append(f"{address:#x}: stall buckets {stall}, {row['records']} records")
        if sum(load) != row["load_records"] or row["load_records"] > row["records"] or load[0]:
            wrong.append(f"{address:#x}: load buckets {load}, {row['load_records']} load records")
        if address in loads and row["load_records"] < row["retired"]:
            wrong.append(f"{address:#x}: a load, {row['retired']} retired records, "
                         f"{row['load_records']} with a data latency")
        if address not in loads and (row["load_records"] or row["latency_cycles"]["load"]):
            wrong.append(f"{address:#x}: no load, but a load latency")
    for message in wrong:
        checks.expect(False, message)
    checks.expect(rows and not wrong, f"{len(rows)} instructions' distributions add up "
                  "(stall buckets to the records, load buckets to the load records)")


def walk_traps(work, seed):
    """Another run of skid with ProfileMe's intervals from `seed`: walk's
    trap records and the truth's traps at walk's instructions."""
    db, truth_path = os.path.join(work, f"db{seed}"), os.path.join(work, f"truth{seed}")
    dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--seed", str(seed),
         "--profileme-interval", str(INTERVAL), "--truth", truth_path, "--db", db, "--",
         PROGRAM, str(PASSES))
    procedures = json.loads(dcpi("profileme", "--db", db, "--image", "skid", "--json"))
    walk_name = next(r["procedure"] for r in procedures["rows"]
                     if re.match(r"walk\b", r["procedure"]))
    rows = json.loads(dcpi("profileme", "--db", db, "--image", "skid", "--procedure", walk_name,
                           "--json"))["rows"]
    pcs = {int(r["address"], 16) for r in rows}
    traps = truth_file.read(truth_path).pc_events.get("trap", {})
    return sum(r["events"]["trap"] for r in rows), sum(n for pc, n in traps.items() if pc in pcs)


def main():
    checks = Checks()
    load, adds = the_load()
    with tempfile.TemporaryDirectory() as work:
        db, truth_path = os.path.join(work, "db"), os.path.join(work, "truth")
        dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--profileme-interval",
             str(INTERVAL), "--truth", truth_path, "--db", db, "--", PROGRAM, str(PASSES))
        truth = truth_file.read(truth_path)
        # walk's symbol (GCC may call it walk.constprop.0), from the procedures.
        procedures = json.loads(dcpi("profileme", "--db", db, "--image", "skid", "--json"))
        walk_name = next(r["procedure"] for r in procedures["rows"]
                         if re.match(r"walk\b", r["procedure"]))
        report = json.loads(dcpi("profileme", "--db", db, "--image", "skid", "--procedure",
                                 walk_name, "--json"))
        score = json.loads(dcpi("score", "--db", db, "--truth", truth_path, "--image", PROGRAM,
                                "--json"))["profileme"]
        objdump = subprocess.run(["alpha-linux-gnu-objdump", "-d", "--no-show-raw-insn",
                                  PROGRAM], capture_output=True, text=True, check=True).stdout
        more_traps = [walk_traps(work, seed) for seed in TRAP_SEEDS]
    loads = {int(m.group(1), 16) for m in re.finditer(
        r"^\s*([0-9a-f]+):\s+(ld[bwlqst]\w*|ldq_u|ldl_l|ldq_l)\s", objdump, re.M)}
    s = report["interval"]
    rows = {int(r["address"], 16): r for r in report["rows"]}
    check_rows(checks, report["rows"], loads)

    # The missing load: sums x S against the truth, then the distribution.
    row = rows.get(load)
    checks.expect(row is not None and row["load_records"] >= 50,
                  f"the load at {load:#x} has {row and row['load_records']} load records")
    if row is None:
        return checks.exit_code()
    k = row["load_records"]
    projected = row["latency_cycles"]["load"] * s
    exact_load = truth.pc_events.get("load_latency", {}).get(load, 0)
    mean = row["latency_cycles"]["load"] / k
    sigma = mean * math.sqrt(k) * s  # a Poisson count of records, each its mean
    checks.expect(exact_load > 0 and abs(projected - exact_load) <= 3 * sigma,
                  f"load -> data at the load: {projected:.0f} projected, {exact_load} true "
                  f"(sigma {sigma:.0f}; mean {mean:.1f} cycles over {k} records)")
    true_buckets = [truth.pc_events.get(f"load_log2_{b}", {}).get(load, 0) for b in range(BUCKETS)]
    records = row["load_distribution"][1:]
    total = sum(true_buckets)
    print(f"load -> data distribution, records {records}, truth {true_buckets}")
    checks.expect(total > 0 and records.index(max(records)) ==
                  true_buckets.index(max(true_buckets)),
                  "the records' peak bucket is the truth's")
    for b in range(BUCKETS):
        share = true_buckets[b] / total if total else 0
        if share < 0.05:
            continue
        spread = math.sqrt(share * (1 - share) / k)
        checks.expect(abs(records[b] / k - share) <= 4 * spread,
                      f"bucket [{1 << b}, {2 << b}): {records[b] / k:.3f} of the records, "
                      f"{share:.3f} of the truth's loads (4 sigma {4 * spread:.3f})")
    for add in adds[:4]:
        r = rows.get(add)
        if r and r["retired"]:
            checks.expect(r["latency_cycles"]["complete"] == r["retired"],
                          f"the addq at {add:#x}: issue -> completion 1 cycle per retired record")

    # Per PC with >= 16 records: the sums x S within 4 sigma of the truth's
    # (21 instructions: 4 sigma keeps a false alarm below 1 in 500 runs).
    per_pc_ok = []
    for address, r in rows.items():
        for field, name in (("complete", "complete_latency"), ("load", "load_latency")):
            k = r["retired"] if field == "complete" else r["load_records"]
            if k < 16:
                continue
            total = r["latency_cycles"][field]
            sigma = total / k * math.sqrt(k) * s
            exact = truth.pc_events.get(name, {}).get(address, 0)
            if abs(total * s - exact) > 4 * sigma:
                checks.expect(False, f"{address:#x} {name}: {total * s:.0f} projected, "
                              f"{exact} true, sigma {sigma:.0f}")
            per_pc_ok.append(address)
    # Every PC the truth expects >= 16 records at is checked (the load
    # twice). Not every PC with a record: walk's prologue runs 17 times, so
    # each of its instructions gets a record in ~1.7 % of runs, and a run
    # with two such stray records failed a count of all rows.
    expected = [a for a in rows if truth.instructions.get(a, 0) / s >= 16]
    checks.expect(expected and len(per_pc_ok) >= len(expected),
                  f"{len(per_pc_ok)} per-PC latency sums x S checked against the truth "
                  f"({len(expected)} PCs expected >= 16 records)")
    executions = truth.instructions.get(load, 0)
    true_mean = exact_load / executions if executions else 0
    checks.expect(abs(mean / true_mean - 1) <= 0.05 if true_mean else False,
                  f"the load's mean load -> data {mean:.1f} cycles, the truth's {true_mean:.1f}")

    # The reader of the loaded register waits for the fill: its stall
    # distribution peaks where the truth's does.
    reader = max(rows.values(), key=lambda r: r["latency_cycles"]["stall"])
    address = int(reader["address"], 16)
    true_stalls = [truth.pc_events.get(f"stall_log2_{b}", {}).get(address, 0)
                   for b in range(BUCKETS)]
    stalled = reader["stall_distribution"][1:]
    print(f"slot -> issue distribution at {address:#x}: records {reader['stall_distribution']}, "
          f"truth {true_stalls} of {truth.instructions.get(address, 0)} executions")
    checks.expect(sum(true_stalls) > 0 and stalled.index(max(stalled)) ==
                  true_stalls.index(max(true_stalls)) and
                  sum(true_stalls) <= truth.instructions.get(address, 0),
                  f"the loaded register's reader at {address:#x}: the records' stall peak "
                  "is the truth's")

    # dcpi score: walk's sums x S against the truth's, within 3 sigma.
    for name in ("complete_latency", "load_latency"):
        walk = [p for p in score.get(name, []) if p["procedure"] == walk_name]
        checks.expect(len(walk) == 1 and
                      abs(walk[0]["projected_cycles"] - walk[0]["true_cycles"]) <=
                      3 * walk[0]["sigma"],
                      f"dcpi score {name} of {walk_name}: {walk and walk[0]}")

    # The trap bit: DTB/ITB misses of the program's pages (its truth lines),
    # over this run and TRAP_SEEDS' (a few records a run).
    traps_true = sum(n for pc, n in truth.pc_events.get("trap", {}).items()
                     if pc in rows or pc == load) + sum(t for _, t in more_traps)
    trap_records = sum(r["events"]["trap"] for r in report["rows"]) + sum(r for r, _ in more_traps)
    # The Poisson sigma of the count the truth expects (traps / S records):
    # the observed count's own root understates it when few records fall
    # (1 record for 8 expected at interval 1024 in one initrd layout, 21 in
    # another: two runs of other seeds are added, as DCPI added runs).
    trap_sigma = math.sqrt(max(traps_true / s, 1)) * s
    checks.expect(abs(trap_records * s - traps_true) <= 4 * trap_sigma,
                  f"traps in walk: {trap_records} records x S = {trap_records * s:.0f}, "
                  f"truth {traps_true} (4 sigma {4 * trap_sigma:.0f})")
    trapped_pcs = {a for a, r in rows.items() if r["events"]["trap"]}
    true_pcs = {pc for pc, n in truth.pc_events.get("trap", {}).items() if n}
    checks.expect(trapped_pcs <= true_pcs,
                  f"trap records only where the truth has traps ({len(trapped_pcs)} PCs)")
    compress_distributions(checks, loads)
    return checks.exit_code()


def compress_distributions(checks, skid_loads):
    """compress: loads that hit (2 cycles), hit a line being filled, or miss
    to the S-cache (8) or beyond: each load's records per bucket against the
    truth's executions per bucket (load_log2_K), a binomial share each."""
    with tempfile.TemporaryDirectory() as work:
        db, truth_path = os.path.join(work, "db"), os.path.join(work, "truth")
        dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", "compress",
             "--profileme-interval", str(INTERVAL), "--truth", truth_path, "--db", db)
        truth = truth_file.read(truth_path)
        procedures = json.loads(dcpi("profileme", "--db", db, "--image", "compress", "--json"))
        rows = []
        for p in procedures["rows"]:
            if p["records"] >= 1000:
                rows += json.loads(dcpi("profileme", "--db", db, "--image", "compress",
                                        "--procedure", p["procedure"], "--json"))["rows"]
    judged, mixed, wrong = 0, 0, []
    for row in rows:
        k = row["load_records"]
        if k < 200:
            continue
        address = int(row["address"], 16)
        true_buckets = [truth.pc_events.get(f"load_log2_{b}", {}).get(address, 0)
                        for b in range(BUCKETS)]
        total = sum(true_buckets)
        records = row["load_distribution"][1:]
        judged += 1
        mixed += sum(n > 0.05 * total for n in true_buckets) > 1
        if total == 0 or k < row["retired"]:
            wrong.append(f"{address:#x}: {k} load records, {row['retired']} retired, "
                         f"truth {true_buckets}")
            continue
        for b in range(BUCKETS):
            share = true_buckets[b] / total
            spread = math.sqrt(max(share * (1 - share), 1 / total) / k)
            if abs(records[b] / k - share) > 4 * spread + 1 / k:
                wrong.append(f"{address:#x} bucket [{1 << b}, {2 << b}): "
                             f"{records[b] / k:.3f} of {k} records, truth {share:.3f}")
    for message in wrong:
        checks.expect(False, message)
    checks.expect(judged >= 10 and mixed >= 5 and not wrong,
                  f"compress: {judged} loads with >= 200 records ({mixed} with more than one "
                  "bucket over 5 %): each bucket's share within 4 sigma of the truth's")


if __name__ == "__main__":
    sys.exit(main())
