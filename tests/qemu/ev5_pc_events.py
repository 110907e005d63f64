#!/usr/bin/env python3
"""The truth per event (issue 26 item 5; docs/exec-counts-format.md
"Version 6"): the ev5 model's counter events per PC, scored against the
event samples.

- the truth is version 6; each event's `pcevent` lines sum to its `event`
  line (every address space included);
- those sums agree with the model's own counts, kept apart from the
  counters: dmiss = dcache_miss, dtbmiss = dtb_miss, branchmp = mispredict
  exactly; imiss <= icache_miss and itbmiss <= itb_miss (a miss found at a
  block's entry for a line fetch never reached is no counter event), the
  difference printed;
- every imiss PC is one where the truth charges an I-cache stall (the model
  books both at the first instruction of the missing line), every dtbmiss
  PC one where it charges a DTB miss;
- `dcpi score --truth` scores each event's samples against the truth's
  events per PC with the placement oracle, per image and event; the ratios
  are printed, not bounded: they are far from noise (copy: imiss 59x,
  dmiss 30x; compress: 2.6x, 1.9x when written) because of DCPI's
  high-IPL blind spot (§4.1), which the truth per event makes visible:
- the events of code that runs at IPL 6 or in PALcode (the driver's own
  handler, the interrupt entry: kernel I-cache misses) overflow there but
  are delivered after the return, on the interrupted instruction, mostly
  user code. Asserted (at a quarter of the default cycle period, for
  samples enough): the kernel image gets at most half the imiss samples
  its events warrant, 3 sigma short of them (~0.1 seen), and copy (a
  6-instruction loop with few I-cache misses of its own) more than three
  times what its own misses warrant (~5.7 seen, 39 samples for 6.8).
- the truth's `visible_imiss` / `visible_dmiss` lines (where a sample can
  land: the blind spots' events where the interrupt is taken) are what
  `dcpi score` holds the samples against; against them every image's
  ratio is within the oracle's 1.25 (or an ideal sampler's 95th percentile
  with this few samples; under 30 samples seen and warranted the ratio is
  printed only: the kernel's dmiss has 10-14), copy's imiss included, which against the events
  themselves is far (the blind spot).

(`--events cycles,imiss:u,dmiss:u` counts user mode only, and the blind
spot leaves those samples: tests/qemu/ev5_event_modes.py.)

Usage: ev5_pc_events.py BUILD_DIR [KEEP_DIR]
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
EVENTS = ("imiss", "itbmiss", "dmiss", "dtbmiss", "branchmp")
PERIOD = event_period_mean()  # counter 2's mean sampling period (firmware/ev5_counters.h)
# The model's own whole-run counts each counter event equals (or bounds).
SAME_AS = {"dmiss": "dcache_miss", "dtbmiss": "dtb_miss", "branchmp": "mispredict"}
AT_MOST = {"imiss": "icache_miss", "itbmiss": "itb_miss"}
# copy's imiss samples must exceed its own misses' share by this factor.
BLIND_SPOT_FACTOR = 3
RATIO_BOUND = 1.25  # the placement oracle's bound (issue 25)
MIN_JUDGED_SAMPLES = 30  # fewer seen and warranted: the ratio is printed


def dcpi(*args):
    done = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise AssertionError(f"dcpi {' '.join(args)}: exit {done.returncode}: {done.stderr[-800:]}")
    return done.stdout


def check_sums(truth, checks):
    checks.expect(truth.version >= 6, f"a version 6 truth (version {truth.version})")
    for name in EVENTS:
        per_pc = sum(truth.pc_events.get(name, {}).values())
        checks.expect(name in truth.events and per_pc == truth.events[name],
                      f"{name}: pcevent lines sum to {per_pc}, event line {truth.events.get(name)}")
    for name, model in SAME_AS.items():
        checks.expect(truth.events.get(name) == truth.events.get(model),
                      f"{name} {truth.events.get(name)} = the model's {model} "
                      f"{truth.events.get(model)}")
    for name, model in AT_MOST.items():
        counted, found = truth.events.get(name, 0), truth.events.get(model, 0)
        checks.expect(0 < counted <= found,
                      f"{name} {counted} <= the model's {model} {found} (misses of lines fetch "
                      f"never reached: {found - counted})")


def check_places(truth, checks):
    stalls = {}
    for pc, cause, _, _ in truth.stalls:
        stalls.setdefault(cause, set()).add(pc)
    for name, cause in (("imiss", "icache"), ("dtbmiss", "dtb")):
        pcs = set(truth.pc_events.get(name, {}))
        off = sorted(pcs - stalls.get(cause, set()))
        checks.expect(pcs and not off,
                      f"every {name} PC ({len(pcs)}) has a '{cause}' stall line; off: "
                      f"{[hex(pc) for pc in off[:5]]}")


def check_scores(db, truth_path, checks):
    for image in ("copy", "compress"):
        score = json.loads(dcpi("score", "--db", db, "--truth", truth_path, "--image", image,
                                "--json"))
        placed = score.get("event_placement", {})
        print(f"{image}: cycles ratio {score['placement']['ratio']:.2f};",
              ", ".join(f"{e} {p['ratio']:.2f} ({p['samples']:.0f} samples, "
                        f"{p['true_cycles']} events)" for e, p in sorted(placed.items())))
        for event in ("imiss", "dmiss"):
            p = placed.get(event)
            checks.expect(p is not None and p["samples"] > 0 and p["true_cycles"] > 0
                          and p["ratio"] > 0,
                          f"{image}: {event} samples scored against the truth's {event} per PC")
        check_visible(image, score, checks)
    check_visible("kernel.elf", json.loads(dcpi("score", "--db", db, "--truth", truth_path,
                                                "--image", "kernel.elf", "--json")), checks)
    text = dcpi("score", "--db", db, "--truth", truth_path, "--image", "copy")
    checks.expect("Event sample placement" in text and "imiss" in text,
                  "dcpi score's text shows the event placement table")


def check_visible(image, score, checks):
    """Against where samples can land, each event within the oracle's bound;
    copy's imiss against the events themselves far from it (the blind spot)."""
    placed = score.get("event_placement", {})
    raw = score.get("event_placement_against_events", {})
    for event in ("imiss", "dmiss"):
        p = placed.get(event, {})
        if p.get("samples", 0) == 0 and p.get("true_cycles", 0) < 2 * PERIOD:
            continue  # under two samples warranted, none seen: nothing to judge
        if max(p.get("samples", 0), p.get("true_cycles", 0) / PERIOD) < MIN_JUDGED_SAMPLES:
            # A handful of samples over dozens of instructions: the oracle's
            # 95th percentile fails an ideal sampler one run in twenty, and
            # the kernel's dmiss (10-14 samples) moved between 1.0 and 2.7x
            # with every timing change of the model. Printed, not judged.
            print(f"{image}: {event} samples against where they can land: ratio "
                  f"{p.get('ratio')} ({p.get('samples')} samples: too few to judge)")
            continue
        bound = placement_bound(p, RATIO_BOUND)
        checks.expect(p.get("expectation") == "visible" and 0 <= p.get("ratio", 99) <= bound,
                      f"{image}: {event} samples against where they can land: ratio "
                      f"{p.get('ratio')} <= {bound:.2f} ({p.get('samples')} samples; against "
                      f"the events {raw.get(event, {}).get('ratio')})")
    if image == "copy":
        r = raw.get("imiss", {}).get("ratio", 0)
        checks.expect(r > 2, f"copy: imiss against the events themselves {r:.2f} > 2: the "
                      "blind spot the visible lines account for")


def space_events(truth_path):
    """{space (pid, generation) or 'shared': {event: count}} from the pcevent lines."""
    out, current = {}, "shared"
    for _, kind, fields, _ in truth_file.records(truth_path):
        if kind == "space":
            current = (int(fields[0]), int(fields[1]))
        elif kind == "pcevent":
            per = out.setdefault(current, {})
            per[fields[1]] = per.get(fields[1], 0) + int(fields[2])
    return out


def check_blind_spot(db, truth, truth_path, checks):
    """Samples per image against events per image, as rates: samples x PERIOD
    (counter 2's mean sampling period, firmware/ev5_counters.h) / events."""
    samples = {}
    for s in json.loads(dcpi("export", "--format", "json", "--db", db))["samples"]:
        if s["event"] == "imiss":
            name = os.path.basename(s["image_path"] or "?")
            samples[name] = samples.get(name, 0) + s["count"]
    spaces = space_events(truth_path)
    programs = {os.path.basename(m[6]): (m[0], m[1]) for m in truth.maps}
    events = {"kernel.elf": spaces.get("shared", {}).get("imiss", 0)}
    for name in ("copy", "compress"):
        events[name] = spaces.get(programs.get(name), {}).get("imiss", 0)
    overall = sum(samples.values()) * PERIOD / max(1, truth.events["imiss"])
    rates = {n: samples.get(n, 0) * PERIOD / max(1, e) / overall for n, e in events.items()}
    print("imiss samples x PERIOD / events, relative to the whole run's:",
          {n: round(r, 3) for n, r in rates.items()}, "samples", samples, "events", events)
    # The samples each image's own misses warrant at the whole run's rate;
    # a blind spot must be far from it both as a factor and in Poisson
    # sigmas (the kernel has a handful of samples: 8 for ~31 once, which is
    # a factor of 3.8 but 4.1 sigma).
    expected = {n: e * overall / PERIOD for n, e in events.items()}
    kernel, kernel_expected = samples.get("kernel.elf", 0), expected["kernel.elf"]
    checks.expect(kernel * 2 <= kernel_expected and
                  kernel_expected - kernel >= 3 * math.sqrt(max(kernel_expected, 1)),
                  f"the kernel's imiss samples are {rates['kernel.elf']:.2f} of what its events "
                  f"warrant ({kernel} for {kernel_expected:.1f}): its high-IPL misses are "
                  "delivered elsewhere")
    checks.expect(rates["copy"] > BLIND_SPOT_FACTOR,
                  f"copy's imiss samples are {rates['copy']:.1f}x what its own misses warrant: "
                  f"they are the handler's, delivered on the interrupted loop")


def main(tmp):
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    db, truth_path = os.path.join(tmp, "events.db"), os.path.join(tmp, "events.truth")
    # A cycle period a quarter of the default: four times the handler's
    # runs, so four times the high-IPL misses whose samples the blind-spot
    # checks count. At the default the kernel warranted 18-31 imiss samples
    # and copy ~2: too few to tell a blind spot from chance every time (CI
    # once saw the kernel's 6 for 18.2, 2.9 sigma, against a 3 sigma bound).
    dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", "copy,compress",
         "--events", "cycles,imiss,dmiss", "--period", "16384", "--truth", truth_path,
         "--db", db)
    truth = truth_file.read(truth_path)
    checks = Checks()
    check_sums(truth, checks)
    check_places(truth, checks)
    check_scores(db, truth_path, checks)
    check_blind_spot(db, truth, truth_path, checks)
    return checks.exit_code()


sys.exit(in_work_dir(main, KEEP))
