#!/usr/bin/env python3
"""Benchmark: what the event samples change in dcpicalc's culprits (DCPI
§6.3; issue 26 item 3), on the ev5 machine, scored against the truth.

Per workload, `dcpi run --machine ev5 --cpus 1 --events mux --truth`
(DCPI's mux: cycles on counter 0, IMISS, DMISS and BRANCHMP rotated on
counter 2, a sample every ~4096 events, randomized), then on the program's image:

- `dcpi score --culprits --json`: culprit recall and precision per cause
  with the event samples and without them (--no-events), the candidates the
  events ruled out and the truth's cycles of their cause there;
- DCPI Figure 10 per procedure of the program: IMISS samples (x ~4096 x 3,
  the events they stand for) against the truth's I-cache stall cycles, and
  against calc's I-cache stall range (top, bottom, midpoint: DCPI reported
  r = 0.91, 0.86, 0.90) with and without the events (`dcpi calc --all
  --breakdown --json`). Pearson r over the procedures with an I-cache stall
  or an IMISS sample.

Nothing is thresholded here (tests/qemu/ev5_calc_events.py asserts).
Usage: bench_calc_events.py BUILD [--workloads copy,compress,...] [--json FILE]
"""
import argparse
import bisect
import json
import math
import os
import subprocess
import sys
import tempfile

from bench_imiss import pearson  # the same Pearson r as DCPI Figure 10's bench
from support.common import event_period_mean, nm

WORKLOADS = "copy,stream,compress,matmul,mathcall,bytecode"
EVENTS_PER_SAMPLE = event_period_mean() * 3  # 3 events share counter 2 under mux


def dcpi(build, *args):
    return subprocess.run([os.path.join(build, "dcpi"), *args], check=True, capture_output=True,
                          text=True, timeout=1200).stdout


def procedure_of(elf):
    rows = sorted((a, s, n) for a, s, t, n in nm(elf) if s and t.lower() == "t")
    starts = [a for a, _, _ in rows]

    def name(pc):
        i = bisect.bisect_right(starts, pc) - 1
        return rows[i][2] if i >= 0 and pc < rows[i][0] + rows[i][1] else None
    return name


def imiss_per_procedure(build, db, workload):
    name = procedure_of(os.path.join(build, "guest", "workloads", workload))
    out = {}
    for s in json.loads(dcpi(build, "export", "--format", "json", "--db", db))["samples"]:
        if s["event"] != "imiss" or os.path.basename(s["image_path"] or "") != workload:
            continue
        address = s["address"] if isinstance(s["address"], int) else int(s["address"], 16)
        proc = name(address)
        if proc:
            out[proc] = out.get(proc, 0) + s["count"]
    return out


def breakdown(build, db, truth, workload, *extra):
    text = dcpi(build, "calc", "--db", db, "--image", f"/bin/{workload}", "--all", "--breakdown",
                "--top", "100000", "--truth", truth, "--json", *extra)
    data = json.loads(text)
    run = data["run"]
    rows = {"": {cause: {"calc": run["calc"]["dynamic"].get(cause, [0, 0]),
                         "truth": run["truth"]["dynamic"].get(cause, [0, 0])[0]}
                 for cause in ("I-cache miss", "D-cache miss", "branch mispredict")}}
    for p in data["procedures"]:
        low, high = p["calc"]["dynamic"].get("I-cache miss", [0, 0])
        rows[p["procedure"]] = {"low": low, "high": high,
                                "truth": p["truth"]["dynamic"].get("I-cache miss", [0, 0])[0]}
    return rows


def figure10(imiss, with_events, without_events):
    names = sorted(set(imiss) | {n for n, r in with_events.items()
                                 if n and (r["truth"] or r["high"])})
    names = [n for n in names if n in with_events and n]
    x = [imiss.get(n, 0) * EVENTS_PER_SAMPLE for n in names]
    out = {"procedures": len(names),
           "r_truth": pearson(x, [with_events[n]["truth"] for n in names])}
    for label, rows in (("events", with_events), ("no_events", without_events)):
        for end in ("high", "low"):
            out[f"r_{label}_{end}"] = pearson(x, [rows[n][end] for n in names])
        out[f"r_{label}_mid"] = pearson(x, [(rows[n]["low"] + rows[n]["high"]) / 2 for n in names])
    return out


def shares(build, db, truth):
    """Each event's samples x EVENTS_PER_SAMPLE over the run against the truth's count of
    it: how well the equal-share assumption projects the events."""
    totals = {}
    for s in json.loads(dcpi(build, "export", "--format", "json", "--db", db))["samples"]:
        totals[s["event"]] = totals.get(s["event"], 0) + s["count"]
    true = {}
    with open(truth) as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == "event" and len(fields) == 3:
                true[fields[1]] = int(fields[2])
    return {e: {"samples": totals.get(e, 0), "projected": totals.get(e, 0) * EVENTS_PER_SAMPLE,
                "true": true.get(e, 0)} for e in ("imiss", "dmiss", "branchmp")}


def culprit_scores(build, db, truth, workload):
    score = json.loads(dcpi(build, "score", "--db", db, "--truth", truth, "--image",
                            f"/bin/{workload}", "--culprits", "--json"))
    out = {}
    for label, key in (("events", "culprits"), ("no_events", "culprits_without_events")):
        c = score.get(key) or {}
        overall = c.get("overall", {})
        out[label] = {"recall": overall.get("recall"), "precision": overall.get("precision"),
                      "cycle_precision": overall.get("cycle_precision"),
                      "causes": {k: {"recall": v.get("recall"), "precision": v.get("precision"),
                                     "ruled_out": v.get("ruled_out"),
                                     "ruled_out_weight": v.get("ruled_out_weight"),
                                     "ruled_out_true_cycles": v.get("ruled_out_true_cycles"),
                                     "true_cycles": v.get("true_cycles")}
                                 for k, v in c.get("causes", {}).items()}}
    return out


def measure(build, workload, tmp):
    db, truth = os.path.join(tmp, f"{workload}.db"), os.path.join(tmp, f"{workload}.truth")
    if not (os.path.exists(db) and os.path.exists(truth)):  # --keep DIR reuses its runs
        dcpi(build, "run", "--quiet", "--machine", "ev5", "--cpus", "1", "--workloads", workload,
             "--events", "mux", "--truth", truth, "--db", db)
    with_events = breakdown(build, db, truth, workload)
    without = breakdown(build, db, truth, workload, "--no-events")
    return {"workload": workload, "culprits": culprit_scores(build, db, truth, workload),
            "shares": shares(build, db, truth),
            "ranges": {"events": with_events[""], "no_events": without[""]},
            "figure10": figure10(imiss_per_procedure(build, db, workload), with_events, without)}


def pct(x):
    return "   -" if x is None else f"{100 * x:5.1f}"


def r_text(x):
    return "   nan" if x is None or math.isnan(x) else f"{x:6.3f}"


def report(results):
    print("Culprits against the truth (ev5, 1 CPU, --events mux; the program's image):")
    print(f"{'workload':9} {'recall':>7} {'without':>8} {'prec.':>7} {'without':>8} "
          f"{'cycles':>7} {'without':>8}  ruled out (cause: n, est. stall cycles, true cycles "
          "of the cause there)")
    for r in results:
        w, wo = r["culprits"]["events"], r["culprits"]["no_events"]
        ruled = ", ".join(f"{k}: {v['ruled_out']}, {v['ruled_out_weight']:.3g}, "
                          f"{v['ruled_out_true_cycles']:.3g}"
                          for k, v in w["causes"].items() if v.get("ruled_out"))
        print(f"{r['workload']:9} {pct(w['recall']):>7} {pct(wo['recall']):>8} "
              f"{pct(w['precision']):>7} {pct(wo['precision']):>8} "
              f"{pct(w['cycle_precision']):>7} {pct(wo['cycle_precision']):>8}  {ruled or '-'}")
    print("\nCalc's dynamic stall range over the program (Figure 4, cycles, millions) with the")
    print("events and without them, and the truth:")
    print(f"{'workload':9} {'cause':18} {'events':>17} {'no events':>17} {'truth':>8}")
    for r in results:
        for cause, v in r["ranges"]["events"].items():
            wo = r["ranges"]["no_events"][cause]["calc"]
            print(f"{r['workload']:9} {cause:18} {v['calc'][0] / 1e6:8.2f}-{v['calc'][1] / 1e6:8.2f} "
                  f"{wo[0] / 1e6:8.2f}-{wo[1] / 1e6:8.2f} {v['truth'] / 1e6:8.2f}")
    print("\nEvents projected from the samples (x ~4096 x 3, equal shares) against the truth's"
          " totals:")
    for r in results:
        print(f"{r['workload']:9} " + "  ".join(
            f"{e} {v['projected']:>10} / {v['true']:>10} ({v['projected'] / v['true'] - 1:+.1%})"
            if v["true"] else f"{e} -" for e, v in r["shares"].items()))
    print("\nDCPI Figure 10 per procedure of the program: Pearson r of IMISS samples x ~12287 with")
    print("the truth's I-cache stall cycles, and with calc's I-cache range (top/bottom/mid)")
    print("with the events and without them (DCPI: 0.91, 0.86, 0.90):")
    print(f"{'workload':9} {'procs':>5} {'truth':>6} | {'top':>6} {'bottom':>6} {'mid':>6} | "
          f"{'top':>6} {'bottom':>6} {'mid':>6} (no events)")
    for r in results:
        f = r["figure10"]
        print(f"{r['workload']:9} {f['procedures']:5} " + " ".join(
            r_text(f[k]) for k in ("r_truth",)) + " | " + " ".join(
            r_text(f[k]) for k in ("r_events_high", "r_events_low", "r_events_mid")) + " | " +
            " ".join(r_text(f[k]) for k in ("r_no_events_high", "r_no_events_low",
                                            "r_no_events_mid")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--workloads", default=WORKLOADS)
    parser.add_argument("--keep", help="keep the databases and truths in this directory (reused if there)")
    parser.add_argument("--json")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tmp = options.keep or scratch
        os.makedirs(tmp, exist_ok=True)
        os.environ["DCPI_BUILDID_DIR"] = os.path.join(tmp, "build-id")
        results = [measure(options.build, w, tmp) for w in options.workloads.split(",")]
    report(results)
    for r in results:  # JSON has no NaN: no spread to correlate is null
        r["figure10"] = {k: None if isinstance(v, float) and math.isnan(v) else v
                         for k, v in r["figure10"].items()}
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"machine": "ev5", "cpus": 1, "events": "mux", "results": results}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
