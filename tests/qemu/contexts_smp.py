#!/usr/bin/env python3
"""Exact calling contexts on several CPUs (issue 28), on the qemu machine:
parallel4's four children run at once on 4 CPUs with `-g --contexts`.

Debian's QEMU 10.0.2, running the vCPUs round-robin without CF_PARALLEL
(as -icount does), bakes the vCPU that translated a block into the block's
plugin callbacks, although the vCPUs share blocks: the contexts plugin then
booked one CPU's calls to the thread another CPU was running, and `dcpi
score --contexts` matched about half of the default mix's user samples on 4
CPUs (all of them on 1). `dcpi run` now takes our patched QEMU, which loads
the index at run time, for --contexts and --paths on several CPUs. Checked:

- the sampled chains' callers match the exact tree for >= 95 % of the user
  samples (to depth 8);
- every one of the four children has user contexts of its own in the exact
  tree (`dcpi tree --json`), and no user code is booked to a thread that
  runs none (the idle threads, a CPU's boot context).

Usage: contexts_smp.py BUILD_DIR [KEEP_DIR]
"""
import json
import os
import sys

from support.common import Checks, in_work_dir, run_dcpi

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
MATCH_SHARE = 0.95


def dcpi(*args):
    return run_dcpi(BUILD, *args)


def user_cycles_by_thread(tree):
    """{thread: cycles of its contexts whose procedure is in a user image}
    (`dcpi tree --json`: the root's children are the threads)."""
    totals = {}

    def walk(node, thread):
        if node.get("image", "").startswith("/"):
            totals[thread] = totals.get(thread, 0) + node["self"].get("cycles", 0)
        for child in node.get("children", []):
            walk(child, thread)

    for thread in tree["root"]["children"]:
        walk(thread, thread["name"])
    return totals


def main(work):
    checks = Checks()
    db = os.path.join(work, "db")
    if not os.path.exists(db):
        dcpi("run", "--cpus", "4", "--workloads", "parallel4", "-g", "--contexts", "--db", db)
    score = json.loads(dcpi("score", "--contexts", "--db", db, "--json"))
    share = score["matched"] / max(score["user_samples"], 1)
    checks.expect(score["user_samples"] > 1000, f"{score['user_samples']} user samples")
    checks.expect(share >= MATCH_SHARE,
                  f"{share:.2%} of the user samples' callers match the exact tree (>= 95 %)")
    tree = json.loads(dcpi("tree", "--db", db, "--json"))
    by_thread = user_cycles_by_thread(tree)
    print("user cycles by thread:", by_thread, flush=True)
    children = [t for t in by_thread if "/bin/parallel4" in t and by_thread[t] > 1000000]
    checks.expect(len(children) >= 4, f"parallel4's children each have their own contexts: "
                  f"{children}")
    strays = {t: c for t, c in by_thread.items() if "/bin/" not in t}
    checks.expect(not strays, f"no user code booked to a thread that runs none: {strays}")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(in_work_dir(main, KEEP))
