#!/usr/bin/env python3
"""Exact calling contexts (issue 28, seed 002 §3): `dcpi run --contexts` on
calls.c, whose call structure is known by construction, checked against
that structure and against the exec_counts plugin's exact instruction
counts of the same run (an oracle the contexts plugin shares no code with).

  contexts.py BUILD LINUX_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

from support.common import Checks, dcpi_binary, symbol
from support import truth_file

BUILD, LINUX = sys.argv[1], sys.argv[2]
DCPI = dcpi_binary(BUILD)
CHECKS = Checks()
expect = CHECKS.expect
KSEG = 0xfffffc0000000000


def dcpi(*args, check=True):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return done


def walk(node, path=()):
    """Every (path of names, node) of the JSON tree."""
    here = path + (node["name"],)
    yield here, node
    for child in node["children"]:
        yield from walk(child, here)


def child(node, name):
    found = [c for c in node["children"] if c["name"] == name]
    return found[0] if found else None


def calls_into(truth, address):
    """Exact transfers into `address` (the callee's entry: bsr targets entry+8,
    past the gp set-up), from the exec_counts plugin's edges."""
    return sum(n for (src, dst), n in truth.edges.items() if dst == address)


def check_structure(thread, truth):
    mains = [node for path, node in walk(thread) if path[-1] == "main"]
    expect(len(mains) == 1 and mains[0]["calls"] == 1, "main is one context, called once")
    main = mains[0]
    cheap, dear = child(main, "cheap"), child(main, "dear")
    expect(cheap and cheap["calls"] == 900 and dear and dear["calls"] == 100,
           "main called cheap 900 times and dear 100 times")
    work_cheap, work_dear = child(cheap, "work"), child(dear, "work")
    expect(work_cheap and work_cheap["calls"] == 900 and work_dear and work_dear["calls"] == 100,
           "work is a context under each caller, with that caller's calls")
    share = work_cheap["total"]["instructions"] / (
        work_cheap["total"]["instructions"] + work_dear["total"]["instructions"])
    expect(0.05 < share < 0.12,
           f"cheap's share of work's cost is {share:.1%} (10 vs 1000 rounds a call), "
           f"not its 90 % share of the calls (the gprof problem)")
    fib = child(main, "fib")
    entry = symbol(os.path.join(LINUX, "calls"), "fib") + 8
    expect(fib and fib["calls"] == calls_into(truth, entry),
           f"fib: its {fib and fib['calls']} calls (GCC made one of fib's two recursions a loop) "
           f"are the exact transfers into it, folded into one context")
    expect(fib and all(name != "fib" for path, _ in walk(fib) for name in path[1:]),
           "no fib below fib: recursion folds onto the ancestor")
    deep = child(main, "deep")
    expect(deep and deep["calls"] == 50 and child(deep, "thrower")["calls"] == 50,
           "deep and thrower were entered 50 times")
    after = child(main, "after_jump")
    expect(after and after["calls"] == 50, "after_jump, called after each longjmp, is main's child")
    expect(not any("after_jump" in path[:-1] or (path[-1] == "after_jump" and "deep" in path)
                   for path, _ in walk(main)),
           "nothing is left under the frames longjmp skipped")
    copier = child(main, "copier")
    memcpy = [c for c in copier["children"] if "memcpy" in c["name"]] if copier else []
    # The first of the 20 calls goes through the PLT and ld.so's resolver (a jump).
    expect(memcpy and memcpy[0]["calls"] == 19 and memcpy[0]["image"].endswith("libc.so.6.1"),
           f"memcpy's caller is visible: copier called {memcpy and memcpy[0]['name']} "
           f"in libc 19 times after the first, lazily bound call")
    return work_cheap, work_dear


def check_totals(root, truth_path):
    bad = [name for path, node in walk(root) for name in [path[-1]]
           if node["total"]["instructions"] != node["self"]["instructions"] +
           sum(c["total"]["instructions"] for c in node["children"])]
    expect(not bad, f"inclusive = exclusive + children's inclusive everywhere ({bad[:3]})")
    kernel = sum(n["self"]["instructions"] for p, n in walk(root) if p[-1] == "[kernel]")
    user = root["total"]["instructions"] - kernel
    truth = truth_file.read(truth_path)
    true_kernel = sum(n for pc, n in truth.instructions.items() if pc >= KSEG)
    true_user = sum(n for pc, n in truth.instructions.items() if pc < KSEG)
    expect(user == true_user, f"user instructions in every context ({user}) = the exact "
           f"count of the run ({true_user})")
    expect(kernel == true_kernel, f"kernel and PALcode instructions ({kernel}) = the exact "
           f"count ({true_kernel})")
    expect(root["total"]["cycles"] == root["total"]["instructions"],
           "on qemu a context's cycles are its instructions")
    expect("dmiss" not in root["total"], "a qemu tree has no model events in its JSON")


def check_reports(db, tmp):
    callers = json.loads(dcpi("prof", "--db", db, "--callers", "work", "--json").stdout)
    by_name = {row["name"]: row for row in callers["callers"]}
    expect(by_name.get("cheap", {}).get("calls") == 900 and by_name.get("dear", {}).get("calls") == 100,
           "dcpi prof --callers work: cheap 900 calls, dear 100")
    expect(by_name["dear"]["instructions"] > 10 * by_name["cheap"]["instructions"],
           "dcpi prof --callers work: dear's calls cost over ten times cheap's")
    callees = json.loads(dcpi("prof", "--db", db, "--callees", "copier", "--json").stdout)
    expect(any("memcpy" in row["name"] and row["calls"] == 19 for row in callees["callees"]),
           "dcpi prof --callees copier: memcpy, 19 calls (and the first through the PLT)")
    text = dcpi("tree", "--db", db).stdout
    expect("main" in text and "work" in text and "total" in text, "dcpi tree prints the tree")
    expect("qemu: one cycle per instruction" in text, "dcpi tree says which machine counted")
    refused = dcpi("tree", "--db", db, "--metric", "dmiss", check=False)
    expect(refused.returncode != 0 and "ev5 machine only" in refused.stderr
           and len(refused.stderr.strip().splitlines()) == 1,
           f"--metric dmiss on a qemu tree: one line naming ev5 ({refused.stderr.strip()})")
    bottom = dcpi("tree", "--db", db, "--bottom-up", "--json", "--metric", "instructions").stdout
    roots = json.loads(bottom)["root"]["children"]
    expect(roots and roots[0]["name"] in ("work", "[kernel]", "fib"),
           f"dcpi tree --bottom-up starts from the largest exclusive costs ({roots[0]['name']})")
    folded = dcpi("export", "--db", db, "--format", "folded", "--metric", "instructions").stdout
    total = json.loads(dcpi("tree", "--db", db, "--json", "--metric", "instructions",
                            "--min-percent", "0").stdout)["root"]["total"]["instructions"]
    expect(sum(int(line.rsplit(" ", 1)[1]) for line in folded.splitlines()) == total,
           "the folded stacks add up to the tree's total")
    expect(any(line.endswith(";cheap;work " + line.rsplit(" ", 1)[1]) for line in folded.splitlines()),
           "a folded stack ends main;...;cheap;work")
    pprof = os.path.join(tmp, "contexts.pb.gz")
    dcpi("export", "--db", db, "--format", "pprof", "--contexts", "-o", pprof)
    proto = os.path.join(os.path.dirname(__file__), "..", "..", "analysis", "reports", "proto")
    if shutil.which("protoc"):
        decoded = subprocess.run(
            f"zcat {pprof} | protoc --decode=perftools.profiles.Profile -I {proto} profile.proto",
            shell=True, capture_output=True, text=True, timeout=60).stdout
        stacks = [block.count("location_id") for block in decoded.split("sample {")[1:]]
        expect(stacks and max(stacks) >= 4, f"pprof --contexts: {len(stacks)} samples with "
               f"location stacks up to {max(stacks or [0])} deep")
    svg = os.path.join(tmp, "flame.svg")
    dcpi("export", "--db", db, "--format", "svg", "-o", svg)
    tree = ElementTree.parse(svg)
    titles = [t.text for t in tree.iter("{http://www.w3.org/2000/svg}title")]
    expect(any(t and t.startswith("work") for t in titles), "the flame graph is well-formed XML "
           "with a frame for work")


def check_bad_file(db, tmp):
    damaged = os.path.join(tmp, "damaged.db")
    shutil.copytree(db, damaged)
    for root, _, files in os.walk(damaged):
        for name in files:
            if name == "contexts.cct":
                path = os.path.join(root, name)
                data = bytearray(open(path, "rb").read())
                data[80] ^= 0x40
                open(path, "wb").write(data)
    done = dcpi("tree", "--db", damaged, check=False)
    lines = done.stderr.strip().splitlines()
    expect(done.returncode != 0 and len(lines) == 1 and "contexts.cct" in lines[0],
           f"a damaged context file: one line naming it, exit {done.returncode}: {lines}")
    check = dcpi("db", "check", damaged, check=False)
    expect(check.returncode != 0 and "contexts.cct" in check.stdout + check.stderr,
           "dcpi db check reports the damaged context file")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db, truth = os.path.join(tmp, "calls.db"), os.path.join(tmp, "calls.truth")
        done = dcpi("run", "--cpus", "1", "--db", db, "--contexts", "--truth", truth, "--quiet",
                    "--", os.path.join(LINUX, "calls"))
        expect("calls 610 " in done.stdout, f"calls ran: {done.stdout.strip()!r}")
        expect("calling contexts of" in done.stderr, "dcpi run says it stored the contexts")
        tree = json.loads(dcpi("tree", "--db", db, "--json", "--metric", "instructions",
                               "--min-percent", "0").stdout)["root"]
        threads = [t for t in tree["children"] if "calls" in t["name"]]
        expect(len(threads) == 1, f"one thread ran calls: {[t['name'] for t in tree['children']]}")
        check_structure(threads[0], truth_file.read(truth))
        check_totals(tree, truth)
        check_reports(db, tmp)
        check_bad_file(db, tmp)
    return CHECKS.exit_code()


if __name__ == "__main__":
    sys.exit(main())
