#!/usr/bin/env python3
"""Exact Ball-Larus path profiles (issue 28 item 1, seed 002 §2): `dcpi run
--machine ev5 --paths` (and on qemu, `dcpi run --paths`) on paths.c, whose paths are known
by construction, checked against the model's truth file of the same run
(exact executions per instruction, written from block counts, a path of the
plugin that shares nothing with the path tracker but the block entries):

  - every instruction of correlated() ran as often as the paths through it
    say (executions derived from path counts = the truth's), and its taken
    forward branches as often as the truth's edges;
  - its paths' cycles add up to its exclusive cycles in the calling context
    tree and to the truth's cycles over its PCs;
  - the Ball-Larus numbers are distinct and below the potential count;
  - the correlated branches: of the loop body's four paths only two ran,
    half the iterations each, which an edge profile (each branch 50/50)
    cannot tell from the other two; the load's path has the D-cache misses;
  - dcpi paths --summary reports the hot paths' share of the misses.

  paths.py BUILD LINUX_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary, symbol_range
from support import truth_file

BUILD, LINUX = sys.argv[1], sys.argv[2]
DCPI = dcpi_binary(BUILD)
PROGRAM = os.path.join(LINUX, "paths")
ITERATIONS = 20000
KSEG = 0xfffffc0000000000
CHECKS = Checks()
expect = CHECKS.expect


def dcpi(*args, check=True):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=900)
    if check and done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return done


def program_space(path):
    """The truth's insn, cycles and edge lines of the address space that ran paths."""
    truth = truth_file.read(path)
    keys = {(pid, gen) for pid, gen, *_, image in truth.maps if image.endswith("/paths")}
    expect(len(keys) == 1, f"one address space ran paths: {sorted(keys)}")
    key, space, lines = keys.pop(), None, {"insn": {}, "cycles": {}, "edge": {}}
    for _, kind, fields, _ in truth_file.records(path):
        if kind == "space":
            space = (int(fields[0]), int(fields[1]))
        elif space == key and kind in ("insn", "cycles"):
            lines[kind][int(fields[0], 16)] = int(fields[1])
        elif space == key and kind == "edge":
            lines["edge"][(int(fields[0], 16), int(fields[1], 16))] = int(fields[2])
    return lines


def check_against_truth(procedure, lines, start, end):
    executions, edges = {}, {}
    for path in procedure["paths"]:
        blocks = path["blocks"]
        for first, last, _ in blocks:
            for pc in range(first, last + 4, 4):
                executions[pc] = executions.get(pc, 0) + path["runs"]
        for (_, last, _), (first, _, _) in zip(blocks, blocks[1:]):
            if first != last + 4:
                edges[(last, first)] = edges.get((last, first), 0) + path["runs"]
    true = {pc: n for pc, n in lines["insn"].items() if start <= pc < end}
    expect(executions == true, f"correlated's executions from its path counts = the truth's "
           f"({len(true)} instructions; differing: "
           f"{sorted((hex(pc), executions.get(pc), true.get(pc)) for pc in set(true) | set(executions) if executions.get(pc) != true.get(pc))[:4]})")
    # Back edges end paths, so the paths give every other taken branch. The
    # truth books an interrupt taken between a branch and its target's
    # first instruction as two transfers (branch -> PALcode -> target): the
    # program's edge is the truth's plus those.
    wrong = {}
    for (source, target), n in edges.items():
        true = lines["edge"].get((source, target), 0)
        interrupted = sum(c for (f, t), c in lines["edge"].items() if f == source and t >= KSEG)
        if not true <= n <= true + interrupted:
            wrong[(hex(source), hex(target))] = (n, true, interrupted)
    expect(edges and not wrong, f"its {len(edges)} taken branches inside paths, from the path "
           f"counts = the truth's edges, plus the interrupted ones ({wrong})")
    cycles = sum(p["cycles"] for p in procedure["paths"])
    true_cycles = sum(n for pc, n in lines["cycles"].items() if start <= pc < end)
    expect(cycles == true_cycles, f"its paths' cycles ({cycles}) = the truth's over its PCs "
           f"({true_cycles})")
    return cycles


def check_numbers(procedure):
    numbers = [p["number"] for p in procedure["paths"]]
    expect(len(set(numbers)) == len(numbers) and all(n < procedure["potential"] for n in numbers),
           f"Ball-Larus numbers distinct and below the {procedure['potential']} potential paths: "
           f"{numbers}")


def calls_in(path, address):
    return any(first <= address <= last for first, last, _ in path["blocks"])


def check_correlation(procedure, left_call_sites, right_call_sites):
    body = [p for p in procedure["paths"] if p["runs"] > ITERATIONS // 10]
    expect(len(body) == 2, f"two hot paths through the loop body: {[p['runs'] for p in body]}")
    kinds = sorted((any(calls_in(p, s) for s in left_call_sites),
                    any(calls_in(p, s) for s in right_call_sites)) for p in body)
    expect(kinds == [(False, True), (True, False)],
           f"one hot path calls left, the other right, never both: {kinds}")
    expect(all(abs(p["runs"] - ITERATIONS // 2) <= 2 for p in body),
           f"each ran half the iterations: {[p['runs'] for p in body]}")
    loads = [p for p in body if any(calls_in(p, s) for s in left_call_sites)][0]
    misses = sum(p["dmiss"] for p in procedure["paths"])
    expect(misses > ITERATIONS // 4 and loads["dmiss"] >= 0.9 * misses,
           f"the load's path has the D-cache misses: {loads['dmiss']} of {misses}")


def call_sites(start, end, callee):
    """The bsr instructions in [start, end) that call `callee` (objdump, the oracle)."""
    out = subprocess.run(["alpha-linux-gnu-objdump", "-d", f"--start-address={start}",
                          f"--stop-address={end}", PROGRAM],
                         capture_output=True, text=True, check=True).stdout
    sites = []
    for line in out.splitlines():
        if "\tbsr\t" in line and f"<{callee}" in line:
            sites.append(int(line.split(":")[0], 16))
    return sites


def check_summary(db):
    table = json.loads(dcpi("paths", "--db", db, "--summary", "--json").stdout)
    expect(table["metric"] == "dmiss" and table["hot"]["paths"] >= 1,
           f"dcpi paths --summary: {table['hot']['paths']} hot paths for D-cache misses")
    hot = table["hot"]
    expect(hot["metric_share"] >= 0.75 and hot["paths"] <= 0.02 * table["executed"],
           f"a few hot paths ({hot['paths']} of {table['executed']}) have "
           f"{hot['metric_share']:.1%} of the misses ({hot['instruction_share']:.1%} of the "
           f"instructions), as seed 002 found")
    text = dcpi("paths", "--db", db, "--summary").stdout
    expect("Table 4" in text and "dense" in text and "ev5" in text, "the summary as text")


def check_qemu(tmp):
    """On qemu the contexts plugin records the paths (one cycle per
    instruction), checked against the exec_counts plugin's truth."""
    db, truth = os.path.join(tmp, "q.db"), os.path.join(tmp, "q.truth")
    done = dcpi("run", "--cpus", "1", "--db", db, "--paths", "--truth", truth, "--quiet", "--",
                PROGRAM)
    expect("paths 428236016 30000" in done.stdout, f"paths ran on qemu: {done.stdout.strip()!r}")
    report = json.loads(dcpi("paths", "--db", db, "--procedure", "correlated", "--json").stdout)
    expect(report["machine"] == "qemu", "the qemu machine's paths say so")
    procedure = report["procedures"][0]
    start, end = symbol_range(PROGRAM, "correlated")
    lines = program_space(truth)
    lines["cycles"] = lines["insn"]  # one cycle per instruction
    check_against_truth(procedure, lines, start, end)
    body = [p for p in procedure["paths"] if p["runs"] > ITERATIONS // 10]
    expect(len(body) == 2 and all(p["cycles"] == p["instructions"] for p in procedure["paths"]),
           f"on qemu too two hot paths, cycles = instructions: {[p['runs'] for p in body]}")
    refused = dcpi("paths", "--db", db, "--procedure", "correlated", "--metric", "dmiss",
                   check=False)
    expect(refused.returncode != 0 and "ev5 machine only" in refused.stderr,
           f"--metric dmiss on qemu paths is refused: {refused.stderr.strip()}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db, truth = os.path.join(tmp, "paths.db"), os.path.join(tmp, "paths.truth")
        done = dcpi("run", "--machine", "ev5", "--cpus", "1", "--db", db, "--contexts", "--paths",
                    "--truth", truth, "--quiet", "--", PROGRAM)
        expect("paths 428236016 30000" in done.stdout, f"paths ran: {done.stdout.strip()!r}")
        expect("distinct paths stored" in done.stderr, "dcpi run says it stored the paths")
        report = json.loads(dcpi("paths", "--db", db, "--procedure", "correlated", "--json",
                                 "--metric", "calls").stdout)
        expect(len(report["procedures"]) == 1, "one procedure named correlated")
        procedure = report["procedures"][0]
        start, end = symbol_range(PROGRAM, "correlated")
        cycles = check_against_truth(procedure, program_space(truth), start, end)
        tree = json.loads(dcpi("tree", "--db", db, "--json", "--min-percent", "0").stdout)
        contexts = []
        stack = [tree["root"]]
        while stack:
            node = stack.pop()
            stack.extend(node["children"])
            if node["name"] == "correlated":
                contexts.append(node["self"]["cycles"])
        expect(sum(contexts) == cycles, f"correlated's exclusive cycles in the tree "
               f"({sum(contexts)}) = its paths' ({cycles})")
        check_numbers(procedure)
        check_correlation(procedure, call_sites(start, end, "left"),
                          call_sites(start, end, "right"))
        text = dcpi("paths", "--db", db, "--procedure", "correlated").stdout
        expect("Paths of correlated" in text and "paths.c:" in text,
               "dcpi paths prints the paths with their source lines")
        check_summary(db)
        page = os.path.join(tmp, "paths.html")
        dcpi("report", "--html", page, "--db", db, "--top", "all", "--model", "ev5")
        html = open(page).read()
        section = html[html.find('id="paths--correlated"'):]
        section = section[:section.find("</section>")]
        expect('class="edge hotpath"' in section and "path #" in section,
               "the HTML report draws correlated's hot paths on its CFG")
        check_qemu(tmp)
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
