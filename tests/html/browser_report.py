#!/usr/bin/env python3
"""`dcpi report --html` rendered in a real browser (issue 19): headless
Chromium loads the page from disk, its DOM (--dump-dom) must hold the
expected procedures, counts and one <svg> per drawn graph, its screenshot
must not be blank, and the file must reference nothing outside itself.

  browser_report.py BUILD_DIR GUEST_DIR

The profile is a real short run (`dcpi run --workloads copy` on 1 CPU).
Cases: the default report; a large one (every kernel procedure, --top all
--unsampled) that Chromium must render whole; an empty database; a run with
value sampling. Timings are printed as BENCH lines (a benchmark's figures,
not checks: a loaded machine renders slower).
"""
import html as markup
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from support.common import Checks, dcpi_binary

BUILD, GUEST = sys.argv[1], sys.argv[2]
DCPI = dcpi_binary(BUILD)
IMAGES = ":".join(os.path.join(GUEST, d) for d in ("workloads", "kernel", "palcode"))
# A smoke bound, generous for a loaded machine: the page must not take
# minutes (the measured time is printed).
CHECKS = Checks()
expect = CHECKS.expect


def chromium(*arguments, timeout=120):
    command = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--disable-background-networking", "--no-first-run", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def dump_dom(page):
    started = time.monotonic()
    done = chromium("--dump-dom", "file://" + page)
    return done.stdout, time.monotonic() - started


def png_pixels(path):
    """(width, height, rows of RGB(A) tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, width = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"PNG depth {depth} colour type {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, rows, channels


def screenshot_colours(page, png):
    done = chromium(f"--screenshot={png}", "--window-size=1200,1400", "file://" + page)
    expect(done.returncode == 0 and os.path.exists(png), f"chromium took a screenshot ({done.stderr[-200:]!r})")
    width, height, rows, channels = png_pixels(png)
    colours, non_white = set(), 0
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            pixel = row[x:x + 3]
            colours.add(pixel)
            non_white += pixel != b"\xff\xff\xff"
    return len(colours), non_white / (len(rows[::4]) * len(range(0, width * channels, channels * 4)))


def outside_references(text):
    refs = [m.group(0) for m in re.finditer(r"""(?:src|href)\s*=\s*["']?([^"'\s>]*)""", text, re.I)
            if not m.group(1).startswith("#")]
    refs += [k for k in ("url(", "@import", "<script", "<link") if k in text]
    return refs


def report(db, html, *extra):
    done = subprocess.run([DCPI, "report", "--html", html, "--db", db, *extra],
                          capture_output=True, text=True, timeout=600)
    expect(done.returncode == 0, f"dcpi report {' '.join(extra)} exits 0 ({done.stderr[-300:]!r})")
    m = re.search(r"\((\d+) procedures, (\d+) graphs\)", done.stderr)
    return (int(m[1]), int(m[2])) if m else (-1, -1)


def prof_rows(db, *extra):
    done = subprocess.run([DCPI, "prof", "--db", db, "--images", IMAGES, "--json", *extra],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def case_default(work, db):
    html = os.path.join(work, "report.html")
    sections, graphs = report(db, html, "--images", IMAGES, "--top", "8")
    text = open(html).read()
    expect(outside_references(text) == [], f"the file references nothing outside itself {outside_references(text)[:5]}")
    dom, seconds = dump_dom(html)
    print(f"BENCH html_render_default {seconds:.2f} s ({len(text)} bytes)")
    prof = prof_rows(db)
    total = prof["totals"]["cycles"]
    expect(f'id="total-samples">{total}<' in dom, f"the DOM shows the run's {total} samples")
    top = [r["procedure"] for r in prof["rows"] if r["procedure"] != "[unknown]"][:8]
    expect(all(f">{markup.escape(p, quote=False)}</a>" in dom for p in top) and "copy_loop" in dom,
           f"the DOM names the top procedures, linked: {top}")
    expect(dom.count('<section class="proc"') == sections == 8, f"{sections} procedure sections")
    expect(graphs > 0 and dom.count("<svg") == graphs, f"one <svg> per drawn graph ({graphs})")
    expect(len(re.findall(r'class="edge back"', dom)) > 0, "the copy loop's back edge is drawn as one")
    colours, ink = screenshot_colours(html, os.path.join(work, "report.png"))
    expect(colours >= 8 and 0.02 < ink < 0.9, f"the screenshot is not blank: {colours} colours, {ink:.1%} non-white")


def case_large(work, db):
    html = os.path.join(work, "kernel.html")
    started = time.monotonic()
    sections, graphs = report(db, html, "--images", IMAGES, "--image", "kernel.elf", "--top", "all",
                              "--unsampled")
    written = time.monotonic() - started
    rows = [r for r in prof_rows(db, "--image", "kernel.elf")["rows"] if r["procedure"] != "[unknown]"]
    dom, seconds = dump_dom(html)
    print(f"BENCH html_large_write {written:.2f} s, render {seconds:.2f} s: {sections} procedures, "
          f"{graphs} graphs, {os.path.getsize(html)} bytes")
    names = [markup.escape(r["procedure"], quote=False) for r in rows[:25]]
    expect(sections > 100 and sections >= len(rows), f"every kernel procedure has a section ({sections})")
    expect(all(f">{n}</a>" in dom for n in names), f"the {len(rows)} sampled ones are linked from the overview")
    expect(dom.count('<section class="proc"') == sections, "and the browser shows all of them")
    expect(dom.count("<svg") == graphs, f"one <svg> per drawn graph ({graphs})")
    # Its time is a BENCH line, not a check (a loaded machine renders it
    # slower); that Chromium renders the whole page is what is asserted.


def case_empty(work):
    db = os.path.join(work, "empty.db")
    os.makedirs(db)
    open(os.path.join(db, "FORMAT"), "w").write("dcpi profile database 1\n")
    html = os.path.join(work, "empty.html")
    report(db, html)
    dom, _ = dump_dom(html)
    expect('id="no-samples"' in dom and "No samples" in dom, "an empty database gives a page that says so")


def case_no_symbols(work, db):
    html = os.path.join(work, "nosymbols.html")
    sections, graphs = report(db, html, "--top", "3")
    dom, _ = dump_dom(html)
    expect("No listing" in dom and graphs == 0, "without the images the page says there is no listing")
    expect("copy+0x" in dom, "and names code by image and address")


def case_values(work):
    """A run that sampled values: the listing shows each instruction's hotlist
    (mathcall's poly_exp sees x = 1.25 most, guest_values_mathcall)."""
    db = os.path.join(work, "values.db")
    done = subprocess.run([DCPI, "run", "--workloads", "mathcall", "--cpus", "1", "--values", "4/2",
                           "--period", "1024", "--db", db, "--quiet"],
                          capture_output=True, text=True, timeout=600)
    expect(done.returncode == 0, f"dcpi run --values exits 0 ({done.stderr[-300:]!r})")
    html = os.path.join(work, "values.html")
    report(db, html, "--images", IMAGES, "--top", "3")
    dom, _ = dump_dom(html)
    expect("values (kind: top values)" in dom and "fp_a: 1.25 " in dom,
           "the listing shows value hotlists, poly_exp's x = 1.25 among them")


def main():
    with tempfile.TemporaryDirectory() as work:
        db = os.path.join(work, "run.db")
        done = subprocess.run([DCPI, "run", "--workloads", "copy", "--cpus", "1", "--db", db],
                              capture_output=True, text=True, timeout=600)
        expect(done.returncode == 0, f"dcpi run exits 0 ({done.stderr[-300:]!r})")
        if done.returncode != 0:
            return
        case_default(work, db)
        case_large(work, db)
        case_empty(work)
        case_values(work)


if __name__ == "__main__":
    main()
    if CHECKS.failures:
        print(f"{len(CHECKS.failures)} check(s) failed")
        sys.exit(1)
