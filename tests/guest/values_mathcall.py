#!/usr/bin/env python3
"""Value sampling end to end (seed 001 §2, §3.4): mathcall on 1 CPU with
`dcpi run --values 4/2`, then `dcpi values`.

mathcall calls poly_exp(x) with x = 1.25 in 90 % of the calls. The first
instruction of poly_exp that reads x ($f16, `divt $f16,$f10,$f11`) must show
1.25 at the top of its fp_a hotlist with a share of 0.9 within 3 sigma (the
binomial over the vtot tuples seen there plus the concise sample's thinning at
probability thld: sigma^2 = 0.09/vtot + 0.9 (1 - thld) / (thld vtot)), and the
semi-invariant finder must list that instruction with 1.25. `dcpi db check`
must accept the database with its .vals files, the address plug-in module
must have stored load/store addresses and return addresses (the per-run
context), and the latency plug-in one (constant: QEMU has no caches) latency
per load.

  values_mathcall.py BUILD_DIR
"""
import json
import math
import os
import subprocess
import sys
import tempfile

from support.common import Checks, dcpi_binary

BUILD = sys.argv[1]
DCPI = dcpi_binary(BUILD)
MODULE = os.path.join(BUILD, "libdcpi_values_address.so")
LATENCY = os.path.join(BUILD, "libdcpi_values_latency.so")
IMAGES = os.path.join(BUILD, "guest")
CHECKS = Checks()
expect = CHECKS.expect


def dcpi(*args):
    result = subprocess.run([DCPI, *args], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        print(result.stdout, result.stderr)
        raise SystemExit(f"dcpi {' '.join(args)} failed with {result.returncode}")
    return result.stdout


with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "db")
    # A shorter sampling period than the default 60K gives more tuples per PC.
    dcpi("run", "--workloads", "mathcall", "--cpus", "1", "--values", "4/2", "--period", "1024",
         "--values-module", f"{MODULE},{LATENCY}", "--db", db, "--quiet")
    check = subprocess.run([DCPI, "db", "check", db], capture_output=True, text=True)
    expect(check.returncode == 0 and "value files" in check.stdout,
           f"dcpi db check passes: {check.stdout.strip()}")

    listing = json.loads(dcpi("values", "--db", db, "--image", "mathcall", "--procedure",
                              "poly_exp", "--images", IMAGES, "--kind", "fp_a", "--json"))
    rows = [r for r in listing["rows"] if "$f16" in r["instruction"]]
    expect(len(rows) > 0, "a poly_exp instruction reading $f16 (x) has an fp_a hotlist")
    if rows:
        row = min(rows, key=lambda r: int(r["address"], 16))
        top = row["values"][0]
        n = row["vtot"]
        # Two sources of error: the workload's own draw (binomial over the n
        # tuples seen) and the concise sample, which keeps each occurrence
        # with probability p = thld, so its estimate C/p of the 0.9 n
        # occurrences has variance 0.9 n (1 - p) / p.
        p = row["thld"]
        sigma = math.sqrt(0.9 * 0.1 / n + 0.9 * (1 - p) / (p * n))
        print(f"{row['address']} {row['instruction']}: vtot {n}, thld {row['thld']}, "
              f"top {top['value']} share {row['top_fraction']:.4f} "
              f"(expected 0.9 +- {3 * sigma:.4f} = 3 sigma)")
        expect(top["value"] == "1.25", f"1.25 is the hottest value of x (got {top['value']})")
        expect(n >= 100, f"enough tuples for a meaningful bound (vtot {n})")
        expect(abs(row["top_fraction"] - 0.9) <= 3 * sigma,
               f"share {row['top_fraction']:.4f} within 3 sigma ({3 * sigma:.4f}) of 0.9")

    invariant = json.loads(dcpi("values", "--db", db, "--image", "mathcall", "--images", IMAGES,
                                "--invariant", "--min-samples", "50", "--threshold", "0.8",
                                "--kind", "fp_a", "--limit", "1000", "--json"))
    found = [r for r in invariant["rows"]
             if r["procedure"] == "poly_exp" and "$f16" in r["instruction"]
             and r["values"][0]["value"] == "1.25"]
    expect(len(found) > 0, "the semi-invariant finder reports x = 1.25 in poly_exp")
    expect(all(r["top_fraction"] >= 0.8 and r["vtot"] >= 50 for r in invariant["rows"]),
           "every reported row passes the threshold and the minimum")

    # dcpi list --values: the same hotlist next to the instruction in the listing.
    listed = json.loads(dcpi("list", "--db", db, "--images", IMAGES, "--procedure", "poly_exp",
                             "--image", "mathcall", "--values", "--json"))
    annotated = [i for l in listed["listings"] for i in l["instructions"]
                 if "$f16" in i["text"] and i.get("values", {}).get("kind") == "fp_a"]
    expect(annotated and annotated[0]["values"]["top"][0]["value"] == "1.25",
           "dcpi list --values shows x = 1.25 next to the instruction reading $f16")

    addresses = json.loads(dcpi("values", "--db", db, "--image", "mathcall", "--kind", "address",
                                "--values-module", MODULE, "--json"))
    expect(len(addresses["rows"]) > 0 and
           all(v["value"].startswith("0x") for r in addresses["rows"] for v in r["values"]),
           f"the address plug-in stored load/store addresses ({len(addresses['rows'])} PCs)")

    # The run context (ra once per run) went through: the address module's
    # "ra" kind holds return addresses inside mathcall's text.
    ras = json.loads(dcpi("values", "--db", db, "--image", "mathcall", "--kind", "ra",
                          "--values-module", MODULE, "--json"))
    expect(len(ras["rows"]) > 0, f"the run context reached the host ({len(ras['rows'])} PCs "
           "with an ra hotlist)")

    # Load latencies (seed 001 §3.3) through the latency plug-in, captured on
    # load opcodes only. QEMU has no memory hierarchy: the interpreter's
    # timed access path is all there is, two lengths of it (driver/
    # value_sampler.cpp UserMemory): a page the run has already translated
    # (26 instructions in session 25) or a page-table walk (~100), each
    # nearly constant (a few data-dependent branches), against hundreds of
    # cycles of spread on ev5.
    latency = json.loads(dcpi("values", "--db", db, "--image", "mathcall", "--kind", "latency",
                              "--images", IMAGES, "--json"))
    seen = sorted({int(v["value"]) for r in latency["rows"] for v in r["values"]})
    levels = [seen[0]] if seen else []
    for value in seen[1:]:
        if value - levels[-1] > 8:
            levels.append(value)
    expect(len(latency["rows"]) > 0 and len(levels) <= 2,
           f"load latencies under QEMU are the access path's two lengths: {seen} over "
           f"{len(latency['rows'])} loads")
    expect(all(r["instruction"].startswith("ld") for r in latency["rows"]),
           "only loads carry a latency")

    # FP loads and stores: the base register is an integer (kind b, hex),
    # never printed as a double (fp_b).
    fp_b = json.loads(dcpi("values", "--db", db, "--image", "mathcall", "--kind", "fp_b",
                           "--images", IMAGES, "--limit", "100000", "--json"))
    int_b = json.loads(dcpi("values", "--db", db, "--image", "mathcall", "--kind", "b",
                            "--images", IMAGES, "--limit", "100000", "--json"))
    fp_memory = ("ldt", "lds", "stt", "sts")
    expect(not any(r["instruction"].startswith(fp_memory) for r in fp_b["rows"]) and
           any(r["instruction"].startswith(fp_memory) for r in int_b["rows"]),
           "FP loads/stores keep their integer base register out of the FP kinds")

if CHECKS.failures:
    print(f"{len(CHECKS.failures)} failure(s)")
    sys.exit(1)
print("values_mathcall: all checks passed")
