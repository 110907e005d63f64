#!/usr/bin/env python3
"""ProfileMe on the ev5 machine (issue 27; seed 004), scored against the
model's truth: `dcpi run --machine ev5 --profileme-interval N --truth`.

- the records reach the database as pm_* events of the tagged
  instructions' PCs, and the interval the driver drew from is recorded
  (epoch.meta profileme_mean), so `dcpi prof` projects
  each count as count x S (S: the mean interval);
- Figure 3 (convergence): the retire count per instruction of the
  program, pm_retired x S, against the truth's executions; at least
  MIN_WITHIN of the instructions with >= MIN_K records lie within
  1 +- 1/sqrt(k) of exact (the paper: about two thirds, what a Poisson
  count gives; asserted >= 55 %, printed);
- D-cache misses: every instruction with a pm_dmiss record is one the
  truth has D-cache misses at (ProfileMe tags the load itself: no skid),
  and the program's pm_dmiss x S is within 4 sigma of the truth's misses
  at its PCs (sigma: sqrt of the records);
- the D-cache miss's level nests (B-cache misses <= S-cache <= D-cache
  per instruction) and write-buffer records sit where the truth has
  write-buffer stalls;
- latencies (`dcpi score`): the records' issue, fetch -> slot and slot ->
  issue cycles x S per procedure against the truth's cycles, the
  program's within 3 sigma, at least half the procedures within 2;
- `dcpi profileme` lists procedures and, per instruction, executions
  (retired x S) and event rates: the D-cache misses per execution of the
  most-missing load is the truth's (exact binomial tail);
- `dcpi score --culprits`: the event bits as dcpicalc's evidence lower
  neither recall nor the confirmed share of cycles, and rule out only
  what the truth has (next to) none of;
- the wrong path: aborted records x S against the truth's squashed fetches
  (a mispredict's wrong path, counted as fetched);
- the PAL blind spot: on callpal, ProfileMe's share of records in PALcode
  is the truth's share of PAL instructions, and no cycle sample is there.

Usage: ev5_profileme.py BUILD_DIR [KEEP_DIR]
"""
import json
import math
import os
import sys

from support import truth_file
from support.common import Checks, run_dcpi, in_work_dir

BUILD = sys.argv[1]
KEEP = sys.argv[2] if len(sys.argv) > 2 else None
WORKLOAD = "compress"
# Denser than the default (64K), for more records per instruction.
INTERVAL = 16384
# PALcode's KSEG range (firmware/memory_map.h DCPI_PALCODE_REGION_BYTES).
PAL_BASE, PAL_SPAN = 0xfffffc0000000000, 0x100000
MIN_K = 16
# The paper's two thirds is what a Poisson count gives; 195 instructions
# put the share's own sigma near 3.3 points (66-71 % measured), so the
# assertion sits 3.5 sigma below it and the share is printed.
MIN_WITHIN = 0.55


# A rate near 0 over ~50 records is far from normal (one miss at a truth
# of 0.001 is "4 sigma" yet happens in 5 % of runs): the exact binomial
# tail instead, at the two-sided probability of 4 sigma.
MIN_TAIL = 6.3e-5


def binomial_tail(hits, trials, p):
    """The smaller one-sided probability of a count as extreme as `hits`
    of `trials` draws at rate p."""
    pmf = [math.comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(trials + 1)]
    return min(sum(pmf[hits:]), sum(pmf[:hits + 1]))


def dcpi(*args):
    return run_dcpi(BUILD, *args)


def records(db):
    """{event: {address: count}} of the program's image, and S."""
    out = {}
    for s in json.loads(dcpi("export", "--format", "json", "--db", db))["samples"]:
        if os.path.basename(s["image_path"] or "") != WORKLOAD or not s["event"].startswith("pm_"):
            continue
        address = int(s["address"], 16) if isinstance(s["address"], str) else s["address"]
        per = out.setdefault(s["event"], {})
        per[address] = per.get(address, 0) + s["count"]
    prof = json.loads(dcpi("prof", "--db", db, "--json"))
    total, estimated = prof["totals"]["pm_samples"], prof["estimated_totals"]["pm_samples"]
    return out, estimated / total


def program_space(truth):
    for pid, generation, _load, _size, _link, _build, path in truth.maps:
        if os.path.basename(path) == WORKLOAD:
            return truth.spaces[(pid, generation)]
    raise AssertionError(f"no {WORKLOAD} in the truth's maps")


def check_recorded_interval(db, checks, s):
    meta = open(os.path.join(db, "epoch-00000001", "epoch.meta")).read()
    checks.expect(f"profileme_mean {INTERVAL}" in meta,
                  f"epoch.meta records the mean interval {INTERVAL}")
    checks.expect(abs(s - (INTERVAL + 0.5)) < 1e-6, f"S = {s}: 1 + floor(mean x E) has mean + 1/2")


def check_convergence(pm, executions, checks, s):
    retired = pm.get("pm_retired", {})
    within, scored = 0, 0
    for pc, k in retired.items():
        if k < MIN_K or pc not in executions:
            continue
        scored += 1
        within += abs(k * s / executions[pc] - 1) <= 1 / math.sqrt(k)
    share = within / scored if scored else 0
    print(f"Figure 3: {within} of {scored} instructions with >= {MIN_K} records within "
          f"1 +- 1/sqrt(k) of their executions ({100 * share:.1f} %)")
    checks.expect(scored >= 50 and share >= MIN_WITHIN,
                  f"retire counts converge: {100 * share:.1f} % within 1/sqrt(k) "
                  f"(at least {100 * MIN_WITHIN:.0f} %)")


def check_levels(pm, truth, checks):
    """The D-cache miss's level and the write buffer (issue 27 item 1): per
    instruction, records that missed the B-cache <= those that missed the
    S-cache <= those that missed the D-cache, some missed beyond the
    S-cache, and every record with the write-buffer bit is at an
    instruction the truth charges write-buffer stalls at."""
    dmiss, smiss, bmiss = (pm.get(e, {}) for e in ("pm_dmiss", "pm_smiss", "pm_bmiss"))
    nested = all(bmiss.get(pc, 0) <= smiss.get(pc, 0) <= dmiss.get(pc, 0)
                 for pc in set(dmiss) | set(smiss) | set(bmiss))
    print(f"D-cache-miss records {sum(dmiss.values())}, beyond the S-cache "
          f"{sum(smiss.values())}, from memory {sum(bmiss.values())}; write-buffer records "
          f"{sum(pm.get('pm_wbuf', {}).values())}")
    checks.expect(nested and sum(smiss.values()) > 0,
                  "the levels nest per instruction, and some misses went beyond the S-cache")
    wbuf_pcs = {pc for pc, cause, c, _ in truth.stalls if cause == "wbuf" and c > 0}
    stray = [f"{pc:x}" for pc in pm.get("pm_wbuf", {}) if pc not in wbuf_pcs]
    checks.expect(not stray, f"write-buffer records only where the truth has such stalls {stray[:3]}")


def check_dcache(pm, truth, executions, checks, s):
    misses = truth.pc_events.get("dmiss", {})
    tagged = pm.get("pm_dmiss", {})
    stray = [f"{pc:x}" for pc in tagged if misses.get(pc, 0) == 0]
    checks.expect(tagged and not stray,
                  f"every pm_dmiss record is on an instruction the truth has misses at "
                  f"({len(tagged)} instructions; stray: {stray[:5]})")
    n = sum(tagged.values())
    exact = sum(misses.get(pc, 0) for pc in executions)
    print(f"D-cache misses of {WORKLOAD}: {n} records x {s:.1f} = {n * s:.0f}, truth {exact}")
    checks.expect(abs(n * s - exact) <= 4 * math.sqrt(max(n, 1)) * s,
                  "the program's D-cache misses within 4 sigma of the truth's")


def check_cycles(db, truth_path, checks):
    """Each record's latencies add up to the cycles its instruction spent at
    the head of the issue queue (issue + fetch -> slot + slot -> issue), what
    the truth's `cycles` lines book per PC: `dcpi score`'s ProfileMe section
    projects them per procedure with a sigma (each record its PC's mean);
    the program's total within 3 sigma, and most procedures within 2."""
    score = json.loads(dcpi("score", "--db", db, "--truth", truth_path, "--image",
                            f"/bin/{WORKLOAD}", "--json"))["profileme"]
    rows = score["procedures"]
    projected, exact = sum(r["projected_cycles"] for r in rows), sum(r["true_cycles"] for r in rows)
    sigma = math.sqrt(sum(r["sigma"] ** 2 for r in rows))
    print(f"cycles of {WORKLOAD}: {projected:.0f} projected from the latencies, truth {exact:.0f} "
          f"(sigma {sigma:.0f}); {score['procedures_within_2sigma']} of the "
          f"{score['procedures_judged']} procedures with >= 16 records within 2 sigma")
    checks.expect(exact > 0 and abs(projected - exact) <= 3 * sigma,
                  "the records' latencies x S within 3 sigma of the truth's cycles")
    judged = score["procedures_judged"]
    checks.expect(judged >= 3 and 2 * score["procedures_within_2sigma"] >= judged,
                  f"at least half the {judged} procedures with >= 16 records within 2 sigma")
    checks.expect(score["executions"]["share_k16"] >= MIN_WITHIN,
                  "dcpi score's Figure 3 share agrees")
    check_wrong_path(score, checks)


def check_wrong_path(score, checks):
    """The wrong path (issue 27 item 1): a mispredict's squashed fetches are
    counted and a tag there is an aborted record; the aborted records x S
    estimate the truth's squashed fetches (`pcevent PC squashed N`) of the
    program within 4 sigma (records as Poisson)."""
    projected, exact = score["aborted_projected"], score["squashed_true"]
    sigma = math.sqrt(max(projected, 1) * score["interval"])
    print(f"wrong path: {projected:.0f} squashed fetches projected from aborted records, truth "
          f"{exact:.0f} (sigma {sigma:.0f})")
    checks.expect(exact > 0 and abs(projected - exact) <= 4 * sigma,
                  "aborted records x S estimate the squashed fetches within 4 sigma")


def check_report(db, pm, truth, checks, s):
    """`dcpi profileme`: per procedure, then per instruction of the hottest
    one; its executions are retired x S, and the D-cache misses per
    execution of the load with the most miss records is the truth's rate
    there (the exact binomial tail of its records at the truth's rate)."""
    rows = json.loads(dcpi("profileme", "--db", db, "--image", WORKLOAD, "--json"))["rows"]
    checks.expect(rows and rows[0]["records"] >= rows[-1]["records"],
                  f"profileme lists {len(rows)} procedures, most records first")
    hottest = rows[0]["procedure"]
    listing = json.loads(dcpi("profileme", "--db", db, "--image", WORKLOAD, "--procedure",
                              hottest, "--json"))["rows"]
    retired = pm.get("pm_retired", {})
    wrong = [r["address"] for r in listing
             if abs(r["executions"] - retired.get(int(r["address"], 16), 0) * s) > 1]
    checks.expect(listing and not wrong,
                  f"{hottest}: {len(listing)} instructions, executions = retired x S ({wrong[:3]})")
    loads = [r for r in listing if r["events"]["dmiss"] > 0]
    if not loads:
        print(f"  {hottest} has no D-cache-miss records")
        return
    load = max(loads, key=lambda r: r["events"]["dmiss"])
    pc = int(load["address"], 16)
    checks.expect(load["instruction"].startswith("ld"),
                  f"the instruction with D-cache-miss records is a load: {load['instruction']}")
    misses, trials = load["events"]["dmiss"], load["retired"]
    exact = truth.pc_events.get("dmiss", {}).get(pc, 0) / max(truth.instructions.get(pc, 1), 1)
    tail = binomial_tail(misses, trials, min(exact, 1.0))
    print(f"  {hottest} {pc:x}: {misses / trials:.3f} D-cache misses per execution "
          f"({trials} records), truth {exact:.3f}; binomial tail {tail:.2g}")
    checks.expect(tail >= MIN_TAIL,
                  f"the load's miss rate is the truth's (two-sided binomial tail >= {MIN_TAIL})")
    text = dcpi("profileme", "--db", db, "--image", WORKLOAD, "--limit", "3")
    checks.expect("ProfileMe records:" in text and "executions" in text,
                  "the text report names the records and the estimate")
    listed = dcpi("list", "--db", db, "--image", WORKLOAD, "--procedure", hottest, "--profileme")
    checks.expect(f"{pc:x}" in listed and load["instruction"] in listed,
                  "dcpi list --profileme lists the same instructions")
    check_html(db, hottest, pc, load, checks)


def check_html(db, hottest, pc, load, checks):
    """The HTML report's listing has a ProfileMe column: the load's row
    shows its estimated executions and its D-cache-miss rate (letter d, as
    in the stalls column), the counts in the cell's title."""
    page = os.path.join(os.path.dirname(db), "report.html")
    dcpi("report", "--html", page, "--db", db, "--top", "3")
    with open(page, encoding="utf-8") as f:
        html = f.read()
    checks.expect(">ProfileMe</th>" in html, "the listing has a ProfileMe column")
    row_start = html.find(f"<td>0x{pc:x}</td>")
    row = html[row_start:html.find("</tr>", row_start)] if row_start >= 0 else ""
    rate = load["events"]["dmiss"] / load["retired"]
    # The JSON rounds the executions to 0.1: either neighbouring integer.
    cells = {f"~{math.floor(load['executions'])}", f"~{math.ceil(load['executions'])}"}
    checks.expect(any(c in row for c in cells) and f"d {rate:.3f}" in row and
                  f"{load['records']} records" in row,
                  f"{hottest} {pc:x}: the HTML row shows {min(cells)} and d {rate:.3f}")
    # The page's culprits weigh the same evidence as dcpi calc's (counter
    # events' shares, ProfileMe's bits): the same stall letters.
    calc = json.loads(dcpi("calc", "--db", db, "--image", f"/bin/{WORKLOAD}", "--procedure",
                           hottest, "--json"))
    letters = [i["static"] + i["dynamic"] for b in calc["blocks"] for i in b["instructions"]
               if int(i["address"], 16) == pc]
    checks.expect(letters and f"<td>{letters[0]}</td>" in row,
                  f"{hottest} {pc:x}: the HTML's stall letters are dcpi calc's ({letters})")


def check_culprits(db, truth_path, checks):
    """dcpicalc prunes its culprits with the records' event bits (DCPI
    §6.3's evidence, ProfileMe's on the instruction itself): recall and the
    confirmed share of the listed culprits' cycles are not lower than
    without them, and what they rule out the truth has next to nothing of."""
    score = json.loads(dcpi("score", "--db", db, "--truth", truth_path, "--image",
                            f"/bin/{WORKLOAD}", "--culprits", "--json"))
    w, wo = score["culprits"]["overall"], score["culprits_without_events"]["overall"]
    print(f"culprits: recall {w['recall']:.4f} (without the bits {wo['recall']:.4f}), cycle "
          f"precision {w['cycle_precision']:.4f} ({wo['cycle_precision']:.4f}), precision "
          f"{w['precision']:.4f} ({wo['precision']:.4f})")
    checks.expect(w["recall"] >= wo["recall"] - 0.005 and
                  w["cycle_precision"] >= wo["cycle_precision"],
                  "the event bits lower neither recall nor the confirmed cycles")
    for cause, v in score["culprits"]["causes"].items():
        if v["ruled_out"]:
            checks.expect(v["ruled_out_true_cycles"] <= 0.02 * v["ruled_out_weight"],
                          f"{cause}: {v['ruled_out']} ruled out, {v['ruled_out_true_cycles']:.0f} "
                          f"true cycles of {v['ruled_out_weight']:.0f} estimated")


def check_pal_blind_spot(tmp, checks):
    """The PALcode blind spot (DCPI §4.1, seed 004 §2): on callpal at the
    default rate, ProfileMe's share of records with a PAL PC is the truth's
    share of PAL instructions (within 3 sigma of a binomial share), while no
    cycle sample lands in PALcode (the interrupt waits for its return)."""
    db, truth_path = os.path.join(tmp, "pal.db"), os.path.join(tmp, "pal.truth")
    if not os.path.exists(db):
        dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", "callpal",
             "--profileme", "--truth", truth_path, "--db", db)
    rows = json.loads(dcpi("prof", "--db", db, "--by", "image", "--json"))["rows"]
    records = sum(r["events"].get("pm_samples", 0) for r in rows)
    pal = [r for r in rows if r["image"] == "palcode.elf"]
    pal_records = pal[0]["events"].get("pm_samples", 0) if pal else 0
    pal_cycles = pal[0]["events"].get("cycles", 0) if pal else 0
    truth = truth_file.read(truth_path)
    exact = sum(v for pc, v in truth.instructions.items()
                if PAL_BASE <= pc < PAL_BASE + PAL_SPAN) / truth.events["instructions"]
    share = pal_records / records if records else 0
    sigma = math.sqrt(exact * (1 - exact) / max(records, 1))
    print(f"callpal: {pal_records} of {records} records in PALcode ({100 * share:.2f} %), the "
          f"truth's PAL instructions {100 * exact:.2f} %; cycle samples there: {pal_cycles}")
    checks.expect(records > 1000 and abs(share - exact) <= 3 * sigma,
                  "ProfileMe's PAL share is the truth's (within 3 sigma)")
    checks.expect(pal_cycles == 0, "no cycle sample in PALcode: the blind spot")


def main(tmp):
    os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
    db, truth_path = os.path.join(tmp, "pm.db"), os.path.join(tmp, "pm.truth")
    if not (os.path.exists(db) and os.path.exists(truth_path)):
        dcpi("run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", WORKLOAD,
             "--profileme-interval", str(INTERVAL), "--truth", truth_path, "--db", db)
    checks = Checks()
    pm, s = records(db)
    truth = truth_file.read(truth_path)
    executions = program_space(truth)
    check_recorded_interval(db, checks, s)
    check_convergence(pm, executions, checks, s)
    check_dcache(pm, truth, executions, checks, s)
    check_levels(pm, truth, checks)
    check_cycles(db, truth_path, checks)
    check_report(db, pm, truth, checks, s)
    check_culprits(db, truth_path, checks)
    check_pal_blind_spot(tmp, checks)
    return checks.exit_code()


sys.exit(in_work_dir(main, KEEP))
