#!/usr/bin/env python3
"""Benchmark: what the event samples change in dcpicalc's culprits (DCPI
§6.3; issue 26 item 3), on the ev5 machine, scored against the truth.

Per workload, `dcpi run --machine ev5 --cpus 1 --events mux --truth`
(DCPI's mux: cycles on counter 0, IMISS, DMISS and BRANCHMP rotated on
counter 2, a sample every 256 events), then on the program's image:

- `dcpi score --culprits --json`: culprit recall and precision per cause
  with the event samples and without them (--no-events), the candidates the
  events ruled out and the truth's cycles of their cause there;
- DCPI Figure 10 per procedure of the program: IMISS samples (x 256 x 3,
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

from support.common import nm

WORKLOADS = "copy,stream,compress,matmul,mathcall,bytecode"
EVENTS_PER_SAMPLE = 256 * 3  # every 256 events, counter 2 shared by 3 events under mux


def dcpi(build, *args):
    return subprocess.run([os.path.join(build, "dcpi"), *args], check=True, capture_output=True,
                          text=True, timeout=1200).stdout


def pearson(xs, ys):
    n = len(xs)
    if n < 3:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


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
    rows = {}
    for p in json.loads(text)["procedures"]:
        low, high = p["calc"]["dynamic"].get("I-cache miss", [0, 0])
        rows[p["procedure"]] = {"low": low, "high": high,
                                "truth": p["truth"]["dynamic"].get("I-cache miss", [0, 0])[0]}
    return rows


def figure10(imiss, with_events, without_events):
    names = sorted(set(imiss) | {n for n, r in with_events.items() if r["truth"] or r["high"]})
    names = [n for n in names if n in with_events]
    x = [imiss.get(n, 0) * EVENTS_PER_SAMPLE for n in names]
    out = {"procedures": len(names),
           "r_truth": pearson(x, [with_events[n]["truth"] for n in names])}
    for label, rows in (("events", with_events), ("no_events", without_events)):
        for end in ("high", "low"):
            out[f"r_{label}_{end}"] = pearson(x, [rows[n][end] for n in names])
        out[f"r_{label}_mid"] = pearson(x, [(rows[n]["low"] + rows[n]["high"]) / 2 for n in names])
    return out


def culprit_scores(build, db, truth, workload):
    score = json.loads(dcpi(build, "score", "--db", db, "--truth", truth, "--image",
                            f"/bin/{workload}", "--culprits", "--json"))
    out = {}
    for label, key in (("events", "culprits"), ("no_events", "culprits_without_events")):
        c = score.get(key) or {}
        overall = c.get("overall", {})
        out[label] = {"recall": overall.get("recall"), "precision": overall.get("precision"),
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
    return {"workload": workload, "culprits": culprit_scores(build, db, truth, workload),
            "figure10": figure10(imiss_per_procedure(build, db, workload),
                                 breakdown(build, db, truth, workload),
                                 breakdown(build, db, truth, workload, "--no-events"))}


def pct(x):
    return "   -" if x is None else f"{100 * x:5.1f}"


def report(results):
    print("Culprits against the truth (ev5, 1 CPU, --events mux; the program's image):")
    print(f"{'workload':9} {'recall':>7} {'without':>8} {'prec.':>7} {'without':>8}  ruled out "
          "(cause: n, est. stall cycles, true cycles of the cause there)")
    for r in results:
        w, wo = r["culprits"]["events"], r["culprits"]["no_events"]
        ruled = ", ".join(f"{k}: {v['ruled_out']}, {v['ruled_out_weight']:.3g}, "
                          f"{v['ruled_out_true_cycles']:.3g}"
                          for k, v in w["causes"].items() if v.get("ruled_out"))
        print(f"{r['workload']:9} {pct(w['recall']):>7} {pct(wo['recall']):>8} "
              f"{pct(w['precision']):>7} {pct(wo['precision']):>8}  {ruled or '-'}")
    print("\nDCPI Figure 10 per procedure of the program: Pearson r of IMISS samples x 768 with")
    print("the truth's I-cache stall cycles, and with calc's I-cache range (top/bottom/mid)")
    print("with the events and without them (DCPI: 0.91, 0.86, 0.90):")
    print(f"{'workload':9} {'procs':>5} {'truth':>6} | {'top':>6} {'bottom':>6} {'mid':>6} | "
          f"{'top':>6} {'bottom':>6} {'mid':>6} (no events)")
    for r in results:
        f = r["figure10"]
        print(f"{r['workload']:9} {f['procedures']:5} {f['r_truth']:6.3f} | "
              f"{f['r_events_high']:6.3f} {f['r_events_low']:6.3f} {f['r_events_mid']:6.3f} | "
              f"{f['r_no_events_high']:6.3f} {f['r_no_events_low']:6.3f} "
              f"{f['r_no_events_mid']:6.3f}")


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
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"machine": "ev5", "cpus": 1, "events": "mux", "results": results}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
