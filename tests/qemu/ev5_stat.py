#!/usr/bin/env python3
"""dcpi stat (issue 26 item 4): counting mode's per-process virtual counters
against the ev5 model's truth, which nobody here counts twice: the truth's
`pcevent` lines are written by the plugin from the model's events per PC and
address space, the counts by the guest kernel from counter 2 (read with
wrperfmon 5, its wraps taken by interrupts) at every context switch.

- without multiplexing (one event), each process's own count equals the sum
  of the truth's pcevent lines of its address spaces exactly, for every
  event of counter 2, on 1 and 4 CPUs (copy, compress, stream at once; and
  manyproc's 56 forked children); and every process's instructions (counter
  0's issues, counted beside them) equal the truth's insn lines of its
  spaces exactly;
- --truth: each event's truth_stall_cycles in the JSON report equal the
  truth's stall lines of that cause in the row's processes' spaces;
- IRIX's rule: a parent's children totals equal the sum of its reaped
  children's own and children totals (manyproc), and the program row of the
  text and JSON reports adds them;
- multiplexed (every counter-2 event on the one counter, instructions on
  counter 0 beside them, exact): the shares of the events add up to 1 per
  process, each projection count / share is
  printed with its error against the truth, and on copy (a steady loop)
  every event with at least 10 000 events is projected within 1 %
  (compress has phases: printed, not bounded);
- on the qemu machine, cycles only, with instructions equal to cycles, and
  a miss event refused naming --machine ev5.

Usage: ev5_stat.py BUILD_DIR [KEEP_DIR]
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

from support import truth_file
from support.common import Checks, dcpi_binary, placement_bound

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
DCPI = dcpi_binary(BUILD)
EVENTS = ("imiss", "itbmiss", "dmiss", "dtbmiss", "branchmp")
# The truth's stall cause word of each event (isa/stall_causes.h).
CAUSES = {"imiss": "icache", "dmiss": "dcache", "itbmiss": "itb", "dtbmiss": "dtb",
          "branchmp": "mispredict"}
STEADY_LIMIT = 0.01  # the bound for a steady loop's projections
STEADY_MIN_EVENTS = 10000


def dcpi(*args, expect_fail=False):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=1500)
    if (done.returncode != 0) != expect_fail:
        raise AssertionError(f"dcpi {' '.join(args)}: exit {done.returncode}: {done.stderr[-1500:]}")
    return done


def counted(db):
    """{pid: {"parent", "cycles", "child_cycles", "children", "events": {name: [own,
    counted, child, child_counted]}}} from the run's process table."""
    tables = sorted(glob.glob(os.path.join(db, "epoch-*", "processes")))
    assert tables, f"no process table in {db}"
    processes = {}
    with open(tables[-1]) as f:
        # Version 2 has the counts; 3 adds the threads' cputime lines.
        assert f.readline().strip() in ("dcpi-processes 2", "dcpi-processes 3"), \
            "a version-2 or -3 table (counts)"
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "process":
                processes[int(fields[1])] = {"parent": int(fields[2]), "program": fields[6]}
            elif fields[0] == "counts":
                p = processes[int(fields[1])]
                p.update(cycles=int(fields[2]), child_cycles=int(fields[3]),
                         children=int(fields[4]), events={})
            elif fields[0] == "count":
                processes[int(fields[1])]["events"][fields[2]] = [int(x) for x in fields[3:7]]
    return {pid: p for pid, p in processes.items() if "events" in p}


def truth_per_process(truth):
    per = {}
    for (pid, _), events in truth.space_events.items():
        mine = per.setdefault(pid, {})
        for name, count in events.items():
            mine[name] = mine.get(name, 0) + count
    return per


def truth_instructions(truth):
    per = {}
    for (pid, _), counts in truth.spaces.items():
        per[pid] = per.get(pid, 0) + sum(counts.values())
    return per


def check_instructions(checks, label, processes, truth):
    expected = truth_instructions(truth)
    wrong = [(pid, p["events"].get("instructions", [None])[0], expected.get(pid, 0))
             for pid, p in processes.items()
             if p["events"].get("instructions", [None])[0] != expected.get(pid, 0)]
    total = sum(p["events"].get("instructions", [0])[0] for p in processes.values())
    checks.expect(not wrong and total > 0,
                  f"{label}: instructions counted per process = the truth's insn lines of its "
                  f"spaces, {len(processes)} processes, {total} instructions; wrong (pid, "
                  f"counted, truth): {wrong[:6]}")


def descendants(processes, pid):
    pids = [pid]
    for p in pids:
        pids += [k for k, q in processes.items() if q["parent"] == p and k not in pids]
    return pids


def check_truth_stalls(checks, label, processes, truth, report, ipc=True):
    for row in report["processes"]:
        pids = descendants(processes, row["pid"]) if row["with_children"] else [row["pid"]]
        for e in row["events"]:
            want = sum(stalls.get(CAUSES[e["name"]], 0)
                       for (pid, _), stalls in truth.space_stalls.items() if pid in pids)
            checks.expect(e.get("truth_stall_cycles") == want,
                          f"{label}: {row['program']} {e['name']} truth stall cycles "
                          f"{e.get('truth_stall_cycles')} = the truth's {CAUSES[e['name']]} "
                          f"stalls of its {len(pids)} processes {want} (estimate "
                          f"{e.get('estimated_cycles')})")
        if ipc:
            got = row.get("ipc")
            checks.expect(row.get("instructions") and got and abs(
                got - row["instructions"] / row["cycles"]) < 1e-5,
                f"{label}: {row['program']} IPC {got} = instructions / cycles")


def run_stat(work, label, cpus, events, *what):
    db = os.path.join(work, f"{label}.db")
    truth = os.path.join(work, f"{label}.truth")
    done = dcpi("stat", "--machine", "ev5", "--cpus", str(cpus), "--db", db, "--truth", truth,
                "-e", events, "--quiet", "--json", *what)
    return counted(db), truth_file.read(truth), json.loads(done.stdout)


def check_exact(checks, label, processes, truth, events):
    expected = truth_per_process(truth)
    for name in events:
        wrong = [(pid, p["events"][name][0], expected.get(pid, {}).get(name, 0))
                 for pid, p in processes.items()
                 if p["events"][name][0] != expected.get(pid, {}).get(name, 0)]
        total = sum(p["events"][name][0] for p in processes.values())
        checks.expect(not wrong and total > 0,
                      f"{label}: {name} counted per process = the truth's pcevent sums of its "
                      f"spaces, {len(processes)} processes, {total} events; wrong (pid, counted, "
                      f"truth): {wrong[:6]}")


def check_irix(checks, label, processes):
    for pid, p in processes.items():
        kids = [k for k in processes.values() if k["parent"] == pid]
        if not kids:
            continue
        for name in p["events"]:
            want = sum(k["events"][name][0] + k["events"][name][2] for k in kids)
            checks.expect(p["events"][name][2] == want,
                          f"{label}: pid {pid}'s children {name} {p['events'][name][2]} = its "
                          f"{len(kids)} children's own + theirs {want}")
        checks.expect(p["children"] == sum(1 + k["children"] for k in kids),
                      f"{label}: pid {pid} counted {p['children']} descendants")


def check_sampled_placement(checks, work, workload, event):
    """One run of WORKLOAD sampling cycles and EVENT (ev5, 1 CPU, with its
    truth): EVENT's samples held against where they can land (dcpi score's
    `visible` expectation), within the oracle's 1.25 or an ideal sampler's
    distance plus 4 of its spreads at that count. Returns the database and
    truth paths."""
    db, truth_path = os.path.join(work, "sampled.db"), os.path.join(work, "sampled.truth")
    dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", workload,
         "--events", f"cycles,{event}", "--truth", truth_path, "--db", db)
    score = json.loads(dcpi("score", "--db", db, "--truth", truth_path, "--image", workload,
                            "--json").stdout)
    p = score.get("event_placement", {}).get(event, {})
    bound = placement_bound(p)
    checks.expect(p.get("samples", 0) > 100 and p.get("expectation") == "visible"
                  and 0 <= p.get("ratio", 99) <= bound,
                  f"{workload}: {event} samples against where they can land: ratio "
                  f"{p.get('ratio')} <= {bound:.2f} ({p.get('samples')} samples)")
    return db, truth_path


def check_projections(checks, label, report, expected, steady_events=None):
    """Prints each process's projected counts against the truth's `expected`
    ({pid: {event: count}}); copy's (a steady loop) must be within
    STEADY_LIMIT where it counted at least STEADY_MIN_EVENTS (of
    `steady_events` only, when given)."""
    for row in report["processes"]:
        for e in row["events"]:
            exact = expected.get(row["pid"], {}).get(e["name"], 0)
            error = (e["projected"] - exact) / exact if exact else float("nan")
            print(f"{label}: {row['program']:>10} {e['name']:>8} share {e['share']:.3f} "
                  f"count {e['count']:>9} projected {e['projected']:>9} exact {exact:>9} "
                  f"error {100 * error:+.2f} %")
            if row["program"] == "copy" and exact >= STEADY_MIN_EVENTS and \
                    (steady_events is None or e["name"] in steady_events):
                checks.expect(abs(error) <= STEADY_LIMIT,
                              f"{label}: copy (a steady loop) {e['name']} projected "
                              f"{e['projected']} within 1 % of {exact} ({100 * error:+.2f} %)")


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory() as scratch:
        work = KEEP or scratch
        os.makedirs(work, exist_ok=True)
        # One event at a time: no multiplexing, so every count must be exact.
        for cpus in (1, 4):
            for name in ("dmiss", "imiss"):
                label = f"{name}-cpus{cpus}"
                processes, truth, report = run_stat(work, label, cpus, f"instructions,{name}",
                                                    "--workloads", "copy,compress,manyproc")
                check_exact(checks, label, processes, truth, (name,))
                check_instructions(checks, label, processes, truth)
                check_truth_stalls(checks, label, processes, truth, report)
                check_irix(checks, label, processes)
                rows = {r["pid"]: r for r in report["processes"]}
                manyproc = [pid for pid, p in processes.items() if p["program"].endswith("manyproc")]
                if manyproc:
                    row = rows.get(manyproc[0], {})
                    p = processes[manyproc[0]]
                    want = p["events"][name][0] + p["events"][name][2]
                    got = row.get("events", [{}])[0].get("count")
                    checks.expect(got == want and row.get("with_children"),
                                  f"{label}: manyproc's row adds its children's (IRIX): {got} "
                                  f"= {want}")
        for name in ("branchmp", "dtbmiss", "itbmiss"):
            processes, truth, report = run_stat(work, f"{name}-cpus1", 1, name, "--workloads",
                                                "copy,compress")
            check_exact(checks, f"{name}-cpus1", processes, truth, (name,))
            checks.expect(all("instructions" not in p["events"] for p in processes.values()),
                          f"{name}-cpus1: -e {name} counts no instructions")
            check_truth_stalls(checks, f"{name}-cpus1", processes, truth, report, ipc=False)
        # Multiplexed: every counter-2 event rotated on the one counter.
        processes, truth, report = run_stat(work, "mux", 1, ",".join(("instructions",) + EVENTS),
                                            "--workloads", "copy,compress")
        expected = truth_per_process(truth)
        for pid, p in processes.items():
            shares = sum(e[1] for name, e in p["events"].items()
                         if name != "instructions") / max(p["cycles"], 1)
            checks.expect(abs(shares - 1) < 1e-9,
                          f"mux: pid {pid} ({p['program']}) shares add up to {shares:.9f}")
        check_projections(checks, "mux", report, expected)
        check_instructions(checks, "mux", processes, truth)
    # The qemu machine: cycles and instructions only.
    with tempfile.TemporaryDirectory() as scratch:
        done = dcpi("stat", "--machine", "qemu", "--cpus", "1", "--quiet", "--json",
                    "--workloads", "copy")
        report = json.loads(done.stdout)
        row = report["processes"][0] if report["processes"] else {}
        checks.expect(report["machine"] == "qemu" and row.get("cycles", 0) > 0
                      and row.get("instructions") == row.get("cycles") and not row.get("events"),
                      f"qemu: copy counted {row.get('cycles')} cycles = instructions, no events")
        refused = dcpi("stat", "--machine", "qemu", "-e", "dmiss", "--workloads", "copy",
                       expect_fail=True)
        checks.expect("--machine ev5" in refused.stderr,
                      f"qemu refuses dmiss naming --machine ev5: {refused.stderr.strip()[-200:]}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
