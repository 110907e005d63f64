#!/usr/bin/env python3
"""Mode modifiers on sampled events (issue 26 item 1): `dcpi run --events
cycles,imiss:u,dmiss:u` on the ev5 machine programs the 21164's kill bits
KILLK and KILLP (firmware/ev5_counters.h), so counter 2 counts user-mode
events only, and no event of the driver's own handler (IPL 6, kernel mode)
can overflow it and be delivered on the interrupted user instruction: the
high-IPL blind spot ev5_pc_events.py shows for plain `imiss` (DCPI §4.1)
is gone from these samples.

- refusals, one line each, before any boot: modes that differ between
  counters 1 and 2 (one set of kill bits for all the 21164's counters),
  `cycles:u` (counter 0's cycles is PALcode's clock, every mode), a bad
  modifier, a modifier on `--machine qemu` (named --machine ev5);
- `dcpi score --truth`: copy's and compress's imiss:u and dmiss:u samples
  against the truth's events at their user PCs, placement ratio <= 1.25,
  or, where so few samples that an ideal sampler's own ratio passes 1.25
  one time in 20, within that 95th percentile (all printed; compress's
  dmiss:u has ~180 samples, whose noise p95 is ~1.5). copy's own I-cache
  misses warrant under one imiss:u sample (its loop is 6 instructions):
  asserted instead that it gets no more than its misses warrant, 3 sigma
  (all modes, the handler's misses gave it ~5.7x that: ev5_pc_events);
- the kernel (and PALcode) image get no imiss:u or dmiss:u sample;
- each event's projected count (dcpi prof --json: samples x mean period /
  share of time on counter 2) is the truth's user-mode count (every
  address space's pcevent lines) within 2 %;
- `dcpi prof` names the columns `imiss:u`, `dmiss:u`.

Usage: ev5_event_modes.py BUILD_DIR [KEEP_DIR]
"""
import json
import math
import os
import subprocess
import sys

from support import truth_file
from support.common import (Checks, dcpi_binary, event_period_mean, in_work_dir,
                            placement_bound)

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
DCPI = dcpi_binary(BUILD)
PERIOD = event_period_mean()  # counter 2's mean sampling period (firmware/ev5_counters.h)
EVENTS = ("imiss:u", "dmiss:u")
RATIO_BOUND = 1.25  # the placement oracle's distance ratio (issue 26 "Done when")
TOTAL_TOLERANCE = 0.02


def dcpi(*args, check=True):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=900)
    if check and done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)}: exit {done.returncode}: {done.stderr[-800:]}")
    return done


def check_refusals(tmp, checks):
    refused = {
        "cycles,imiss:u,dmiss:k": "one set of kill bits",
        "cycles,loads:u,imiss": "one set of kill bits",
        "cycles:u,imiss:u": "PALcode's virtual clock",
        "cycles,imiss:x": "a modifier is u (user)",
        "cycles,imiss:ukp": "not all three",
    }
    db = os.path.join(tmp, "refused.db")
    for events, why in refused.items():
        done = dcpi("run", "--machine", "ev5", "--workloads", "copy", "--events", events,
                    "--db", db, check=False)
        line = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        checks.expect(done.returncode != 0 and why in line,
                      f"--events {events} refused: {line[:160]}")
    done = dcpi("run", "--workloads", "copy", "--events", "cycles,imiss:u", "--db", db,
                check=False)
    checks.expect(done.returncode != 0 and "--machine ev5" in done.stderr,
                  f"--events cycles,imiss:u on --machine qemu refused naming --machine ev5: "
                  f"{done.stderr.strip()[-160:]}")


def image_samples(db):
    """{(image basename, event): samples}."""
    out = {}
    for s in json.loads(dcpi("export", "--format", "json", "--db", db).stdout)["samples"]:
        key = (os.path.basename(s["image_path"] or "?"), s["event"])
        out[key] = out.get(key, 0) + s["count"]
    return out


def check_placement(db, truth_path, checks):
    """{image: {event: score}} of the events with samples, checked."""
    scores = {}
    for image in ("copy", "compress"):
        score = json.loads(dcpi("score", "--db", db, "--truth", truth_path, "--image", image,
                                "--json").stdout)
        placed = scores[image] = score.get("event_placement", {})
        print(f"{image}: cycles ratio {score['placement']['ratio']:.2f};",
              ", ".join(f"{e} {p['ratio']:.2f} (noise p95 {p['noise_ratio_p95']:.2f}; "
                        f"{p['samples']:.0f} samples, {p['true_cycles']} events)"
                        for e, p in sorted(placed.items())))
        for event in EVENTS:
            p = placed.get(event)
            if image == "copy" and event == "imiss:u" and (p is None or p["samples"] == 0):
                continue  # under one sample warranted: check_copy_imiss
            bound = placement_bound(p, RATIO_BOUND) if p else RATIO_BOUND
            checks.expect(p is not None and p["samples"] > 0 and p["true_cycles"] > 0 and
                          0 < p["ratio"] <= bound,
                          f"{image}: {event} placement ratio {p['ratio'] if p else None} <= "
                          f"{bound:.2f} (1.25, or an ideal sampler's distance + 4 spreads)")
    return scores


def check_copy_imiss(samples, truth, checks):
    """copy's imiss:u samples against what its own user-mode misses warrant
    at the run's rate (the blind spot gave it ~5.7x with every mode)."""
    programs = {os.path.basename(m[6]): (m[0], m[1]) for m in truth.maps}
    copy_events = truth.space_events.get(programs.get("copy"), {}).get("imiss", 0)
    user_events = sum(per.get("imiss", 0) for per in truth.space_events.values())
    sampled = sum(n for k, n in samples.items() if k[1] == "imiss:u")
    warranted = copy_events * sampled / max(1, user_events)
    got = samples.get(("copy", "imiss:u"), 0)
    checks.expect(got <= warranted + 3 * math.sqrt(max(warranted, 1)),
                  f"copy: {got} imiss:u samples for the {warranted:.2f} its own {copy_events} "
                  f"user-mode misses warrant: no handler misses delivered on its loop")


def check_kernel_and_totals(db, truth, checks):
    samples = image_samples(db)
    print("samples per (image, event):", dict(sorted(samples.items())))
    estimated = json.loads(dcpi("prof", "--db", db, "--json").stdout)["estimated_totals"]
    for event in EVENTS:
        system = {k: n for k, n in samples.items()
                  if k[1] == event and k[0] in ("kernel.elf", "palcode.elf", "?", "[unknown]")}
        checks.expect(not system, f"no {event} sample in the kernel, PALcode or unknown: {system}")
        base = event.split(":")[0]
        user_events = sum(per.get(base, 0) for per in truth.space_events.values())
        estimate = estimated.get(event, 0)
        error = abs(estimate - user_events) / max(1, user_events)
        checks.expect(user_events > 0 and error <= TOTAL_TOLERANCE,
                      f"{event}: projected {estimate:.0f}, the truth's user-mode {base} events "
                      f"{user_events} (all modes {truth.events.get(base)}): off by {error:.2%}")
    check_copy_imiss(samples, truth, checks)


def check_columns(db, checks):
    text = dcpi("prof", "--db", db).stdout
    checks.expect(all(e in text for e in EVENTS),
                  f"dcpi prof names the columns {', '.join(EVENTS)}: {text.splitlines()[:3]}")


def main(tmp):
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    checks = Checks()
    check_refusals(tmp, checks)
    db, truth_path = os.path.join(tmp, "modes.db"), os.path.join(tmp, "modes.truth")
    if not os.path.exists(truth_path):
        dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", "copy,compress",
             "--events", "cycles," + ",".join(EVENTS), "--truth", truth_path, "--db", db)
    truth = truth_file.read(truth_path)
    check_placement(db, truth_path, checks)
    check_kernel_and_totals(db, truth, checks)
    check_columns(db, checks)
    return checks.exit_code()


sys.exit(in_work_dir(main, KEEP))
