#!/usr/bin/env python3
"""Layering check (issue 13; docs/architecture.md): each room may include only
the rooms its arrows point to. Scans every #include "room/..." in C, C++ and
assembly sources and fails, naming file, line and rule, on any other.

Usage: check_layering.py SOURCE_DIR
       check_layering.py --self-test   (plants violations in a scratch tree)
"""
import os
import re
import sys
import tempfile

# room -> rooms it may include (itself always allowed). A room is a path
# prefix; the longest matching prefix decides. Guest rooms never include a
# host room; the kernel and the driver meet only through two headers.
ALLOWED = {
    "firmware": set(),
    "palcode": {"firmware"},
    "isa": set(),
    "driver": {"firmware", "isa"},
    "kernel": {"firmware"},
    "workloads": {"firmware"},
    "tests/guest": {"firmware", "kernel", "driver", "isa", "workloads", "tests/guest"},
    "tests/newlib": {"firmware", "workloads"},
    "qemu/machine": {"isa", "firmware"},
    "qemu/host": {"firmware"},
    "qemu/bundle": {"firmware"},
    "profiledb": {"firmware"},  # the format every host room may read (profiledb/README.md)
    "symbols": {"isa", "firmware", "profiledb"},
    "hostdump": {"firmware", "isa", "profiledb"},
    # analysis/: samples/, calc/ and values/ compute and never render;
    # reports/ renders every report's text and JSON (analysis/README.md);
    # html/ renders the page; cli/ parses options and calls them.
    "analysis/samples": {"isa", "firmware", "profiledb", "symbols"},
    "analysis/calc": {"isa", "firmware", "profiledb", "symbols"},
    # calc's sub-rooms (analysis/calc/README.md): frontend -> truth, decode
    # -> estimate -> model; only the front end reads the database and ELF.
    "analysis/calc/model": {"isa", "firmware"},
    "analysis/calc/estimate": {"isa", "firmware", "analysis/calc/model"},
    "analysis/calc/truth": {"isa", "firmware", "analysis/calc/model", "analysis/calc/estimate"},
    "analysis/calc/decode": {"isa", "firmware", "analysis/calc/model"},
    "analysis/calc/frontend": {"isa", "firmware", "profiledb", "symbols", "analysis/calc"},
    "analysis/values": {"isa", "firmware", "profiledb", "symbols"},
    "analysis/reports": {"isa", "firmware", "profiledb", "symbols", "analysis/samples",
                         "analysis/calc", "analysis/values"},
    "analysis/html": {"isa", "firmware", "profiledb", "symbols", "analysis/samples",
                      "analysis/reports", "analysis/calc", "analysis/values"},
    "analysis/cli": {"isa", "firmware", "hostdump", "qemu", "profiledb", "symbols", "analysis"},
    "tests": None,  # host tests may include anything
}
# Single headers that open a door between two rooms.
DOORS = {
    "kernel": {"driver/driver.h", "driver/kernel_services.h"},
    "driver": {"driver/kernel_services.h"},
}
SOURCE = re.compile(r"\.(c|cc|cpp|h|hpp|S|s|inc)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def room_of(path):
    best = None
    for room in ALLOWED:
        if path == room or path.startswith(room + "/"):
            if best is None or len(room) > len(best):
                best = room
    return best


def allowed(room, include):
    """A rule names a room or a sub-folder of one (e.g. hostdump/values)."""
    return any(include.startswith(r + "/") for r in ALLOWED[room] | {room})


def violations(root):
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d != "build"]
        for name in files:
            if not SOURCE.search(name):
                continue
            path = os.path.relpath(os.path.join(directory, name), root)
            room = room_of(path)
            if room is None or ALLOWED[room] is None:
                continue
            with open(os.path.join(root, path), errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    include = m.group(1)
                    if include.startswith("."):  # relative: resolve from the file
                        include = os.path.normpath(os.path.join(os.path.dirname(path), include))
                    if "/" not in include:
                        continue
                    if allowed(room, include):
                        continue
                    if include in DOORS.get(room, set()):
                        continue
                    if not os.path.exists(os.path.join(root, include)):
                        continue  # a system or generated header
                    yield f"{path}:{number}: room {room} must not include {include}"


def self_test():
    """The check must flag each planted crossing and nothing else."""
    planted = {
        "driver/handler.cpp": ['#include "kernel/process.h"', '#include "driver/driver.h"'],
        "kernel/main.cpp": ['#include "driver/percpu.h"', '#include "driver/driver.h"'],
        "hostdump/ingest.cpp": ['#include "symbols/elf_image.h"'],
        "profiledb/value_file.h": ['#include "hostdump/values/concise_sample.h"',
                                   '#include "firmware/crc32c.h"'],
        "profiledb/profile_db_writer.cpp": ['#include "profiledb/container.h"',
                                            '#include "hostdump/row_accumulator.h"'],
        "profiledb/db_check.cpp": ['#include "symbols/elf_image.h"'],
        "isa/decode.h": ['#include "hostdump/ingest.h"', '#include <cstdint>'],
        "analysis/reports/prof_output.h": ['#include "analysis/cli/cli_options.h"'],
        "analysis/cli/prof.cpp": ['#include "analysis/reports/prof_output.h"'],
        "analysis/calc/frontend/inputs.cpp": ['#include "analysis/samples/sample_set.h"',
                                              '#include "analysis/reports/json_writer.h"'],
        "analysis/samples/profile_table.cpp": ['#include "analysis/reports/report_output.h"'],
        "analysis/values/value_rows.cpp": ['#include "analysis/html/html_text.h"'],
        "analysis/calc/model/ev5_model.cpp": ['#include "analysis/calc/estimate/cfg.h"'],
        "analysis/calc/estimate/cfg.cpp": ['#include "analysis/calc/model/processor_model.h"',
                                           '#include "symbols/elf_image.h"'],
        "analysis/reports/calc_output.cpp": ['#include "analysis/calc/frontend/inputs.h"',
                                             '#include "analysis/html/html_text.h"'],
        "palcode/pal.S": ['#include "../kernel/process.h"', '#include "firmware/pal_abi.h"'],
        "firmware/pal_abi.h": [],
        "kernel/process.h": [], "driver/driver.h": [], "driver/percpu.h": [],
        "symbols/elf_image.h": [], "hostdump/ingest.h": [],
        "hostdump/values/concise_sample.h": [], "hostdump/row_accumulator.h": [],
        "firmware/crc32c.h": [], "profiledb/container.h": [],
        "analysis/cli/cli_options.h": [], "analysis/samples/sample_set.h": [],
        "analysis/reports/json_writer.h": [], "analysis/reports/report_output.h": [],
        "analysis/html/html_text.h": [], "analysis/calc/frontend/inputs.h": [],
        "analysis/calc/estimate/cfg.h": [], "analysis/calc/model/processor_model.h": [],
    }
    expected = {"driver/handler.cpp:1", "kernel/main.cpp:1", "hostdump/ingest.cpp:1",
                "profiledb/value_file.h:1", "profiledb/profile_db_writer.cpp:2",
                "profiledb/db_check.cpp:1",
                "isa/decode.h:1", "analysis/reports/prof_output.h:1", "palcode/pal.S:1",
                "analysis/calc/frontend/inputs.cpp:1", "analysis/calc/frontend/inputs.cpp:2",
                "analysis/samples/profile_table.cpp:1", "analysis/values/value_rows.cpp:1",
                "analysis/reports/calc_output.cpp:2", "analysis/calc/model/ev5_model.cpp:1",
                "analysis/calc/estimate/cfg.cpp:2"}
    with tempfile.TemporaryDirectory() as root:
        for path, lines in planted.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write("\n".join(lines) + "\n")
        found = {v.split(": ")[0] for v in violations(root)}
    if found != expected:
        print(f"layering self-test: expected {sorted(expected)}, found {sorted(found)}")
        return 1
    print(f"layering self-test: {len(expected)} planted violations caught, none invented")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = list(violations(sys.argv[1]))
    for v in found:
        print(v)
    print(f"layering: {len(found)} violation(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
