#!/usr/bin/env python3
"""ProfileMe's replay bit (issue 27; firmware/profileme.h
PROFILEME_BIT_REPLAY, docs/profileme.md "Replay"): a tagged load that
replay-trapped (issued one cycle after a store to its address, the model's
load_after_store; 21164PC HRM p. 2-33) has the bit, and the driver counts
its records as pm_replay.

`dcpi run --machine ev5 --cpus 1 --workloads mathcall,compress
--profileme-interval 1024 --truth`, then against the truth's replay traps
(`event load_replays`, `pcevent PC replay N`):

- there are replays to find (the truth has >= 100,000) and records of them;
- every pm_replay record of the two programs is at a PC the truth has
  replays at (ProfileMe tags the load itself: no skid);
- the programs' pm_replay x S is within 4 sigma of the truth's replays at
  their PCs (sigma: sqrt(records) x S, Poisson);
- every PC with pm_replay records has pm_load_cycles (a replay is a load's);
- `dcpi profileme --json` counts them (events.replay) on mathcall's rows (compress has none).

Usage: ev5_profileme_replay.py BUILD_DIR [KEEP_DIR]
"""
import json
import math
import os
import sys

from support import truth_file
from support.common import Checks, in_work_dir, run_dcpi

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
WORKLOADS = ("mathcall", "compress")
INTERVAL = 1024


def program_events(db, programs=WORKLOADS):
    """{event: {address: count}} of the programs' pm_* events."""
    out = {}
    for s in json.loads(run_dcpi(BUILD, "export", "--format", "json", "--db", db))["samples"]:
        if os.path.basename(s["image_path"] or "") not in programs or not s["event"].startswith("pm_"):
            continue
        address = int(s["address"], 16) if isinstance(s["address"], str) else s["address"]
        per = out.setdefault(s["event"], {})
        per[address] = per.get(address, 0) + s["count"]
    return out


def main(work):
    checks = Checks()
    db, truth_path = os.path.join(work, "db"), os.path.join(work, "truth")
    run_dcpi(BUILD, "run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads",
             ",".join(WORKLOADS), "--profileme-interval", str(INTERVAL), "--truth", truth_path,
             "--db", db)
    truth = truth_file.read(truth_path)
    s = json.loads(run_dcpi(BUILD, "prof", "--db", db, "--json"))
    scale = s["estimated_totals"]["pm_samples"] / s["totals"]["pm_samples"]
    true_replays = truth.pc_events.get("replay", {})
    checks.expect(truth.events.get("load_replays", 0) >= 100000,
                  f"the truth's replay traps: {truth.events.get('load_replays', 0)} (>= 100,000)")
    events = program_events(db)
    replay_records = events.get("pm_replay", {})
    k = sum(replay_records.values())
    checks.expect(k >= 100, f"pm_replay records of the programs: {k} (>= 100)")
    stray = sorted(hex(a) for a in replay_records if not true_replays.get(a))
    checks.expect(not stray, f"pm_replay records where the truth has no replays: {stray}")
    # The programs' replays: their PCs in the truth (static images at
    # 0x120000000, apart from the kernel's and PALcode's addresses).
    exact = sum(n for a, n in true_replays.items() if a < 0xfffffc0000000000)
    sigma = math.sqrt(max(k, 1)) * scale
    print(f"replays: {k} records x {scale:.1f} = {k * scale:.0f}, truth {exact} "
          f"(sigma {sigma:.0f})")
    checks.expect(abs(k * scale - exact) <= 4 * sigma,
                  "the programs' pm_replay x S within 4 sigma of the truth's replays")
    loads = events.get("pm_load_cycles", {})
    not_loads = sorted(hex(a) for a in replay_records if not loads.get(a))
    checks.expect(not not_loads, f"pm_replay records at PCs without load records: {not_loads}")
    report = json.loads(run_dcpi(BUILD, "profileme", "--db", db, "--image", "mathcall",
                                 "--json"))
    in_report = sum(r["events"]["replay"] for r in report["rows"])
    in_database = sum(program_events(db, ("mathcall",)).get("pm_replay", {}).values())
    checks.expect(in_report == in_database and in_report > 0,
                  f"dcpi profileme's replay records of mathcall: {in_report} (the database: "
                  f"{in_database})")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(in_work_dir(main, KEEP))
