#!/usr/bin/env python3
"""The 21164's load-after-store replay traps on the ev5 machine (issue 26:
counter 2's LDU replay traps, SEL2 0x9, the `replay` event; the 21164PC
HRM p. 2-33: a load issued one cycle after a store to the same address replays
and "costs seven cycles", two cycles after it is issue-stalled for one),
against the model's truth:

- counted without multiplexing (`dcpi stat -e instructions,replay`,
  mathcall and compress, 1 and 4 CPUs), each process's own count equals the
  truth's `pcevent ... replay` lines of its spaces exactly;
- mathcall converts doubles to integers with `cvttq; stt; ldq` through the
  stack (the 21164 has no FP-to-integer move), the load right after the
  store: it replays, and every replay in the truth costs 7 cycles at the
  load, blamed on the store (`replay` stalls whose culprit is the store,
  the 1-cycle issue stalls beside them);
- sampled (`dcpi run --events cycles,replay`), the samples sit where the
  truth says they can land (`visible_replay`: ratio <= 1.25 or an ideal
  sampler's 95th percentile).

Usage: ev5_replays.py BUILD_DIR [KEEP_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ev5_stat  # noqa: E402  (its helpers; its main runs only as a script)
from support import truth_file  # noqa: E402
from support.common import Checks, in_work_dir  # noqa: E402

KEEP = sys.argv[2] if len(sys.argv) > 2 else None
REPLAY = 7  # the ev5 machine's `replay` (docs/ev5-machine.md)


def exact_runs(checks, work):
    for cpus in (1, 4):
        label = f"replay-cpus{cpus}"
        processes, truth, _ = ev5_stat.run_stat(work, label, cpus, "instructions,replay",
                                                "--workloads", "mathcall,compress")
        ev5_stat.check_exact(checks, label, processes, truth, ("replay",))
        ev5_stat.check_instructions(checks, label, processes, truth)
        mathcall = [p["events"]["replay"][0] for p in processes.values()
                    if p["program"].endswith("mathcall")]
        checks.expect(mathcall and mathcall[0] > 100000,
                      f"{label}: mathcall's conversions through memory replay: {mathcall}")
        replays = truth.events.get("load_replays", 0)
        checks.expect(truth.events.get("replay") == replays,
                      f"{label}: the pcevent lines add up to the model's count "
                      f"{truth.events.get('replay')} = {replays}")
        # Every replay's 7 cycles are a `replay` stall at a load where the
        # truth counts the replay; the issue stalls (1 cycle) are the rest.
        replay_pcs = truth.pc_events.get("replay", {})
        at_replays = sum(c for pc, cause, c, culprit in truth.stalls
                         if cause == "replay" and culprit is not None and pc in replay_pcs)
        checks.expect(at_replays >= REPLAY * replays > 0,
                      f"{label}: the loads that replayed carry {at_replays} `replay` stall "
                      f"cycles blamed on a store, >= {REPLAY} x {replays} replays")


def sampled_run(checks, work):
    _, truth_path = ev5_stat.check_sampled_placement(checks, work, "mathcall", "replay")
    truth = truth_file.read(truth_path)
    checks.expect(truth.events.get("visible_replay", 0) > 0,
                  "the truth says where replay samples can land")


def main():
    checks = Checks()

    def runs(work):
        exact_runs(checks, work)
        sampled_run(checks, work)

    in_work_dir(runs, KEEP)
    return checks.exit_code()


sys.exit(main())
