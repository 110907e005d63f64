#!/usr/bin/env python3
"""Layering check (issue 13; docs/architecture.md): each room may include only
the rooms its arrows point to. Scans every #include "room/..." in C, C++ and
assembly sources and fails, naming file, line and rule, on any other.

Usage: check_layering.py SOURCE_DIR
       check_layering.py --self-test   (plants violations in a scratch tree)
       check_layering.py --table       (the rules as docs/architecture.md's table)
       check_layering.py --check-doc docs/architecture.md
"""
import os
import re
import sys
import tempfile

# room -> rooms it may include (itself always allowed). A room is a path
# prefix; the longest matching prefix decides. Guest rooms never include a
# host room; the kernel and the driver meet only through three headers.
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
    # The one truth writer knows the format and the causes, not the model.
    "qemu/machine/truth": {"isa", "firmware"},
    "qemu/host": {"firmware"},
    "qemu/bundle": {"firmware", "symbols"},  # the one ELF model reads the programs it bundles
    "profiledb": {"firmware"},  # the format every host room may read (profiledb/README.md)
    "symbols": {"isa", "firmware", "profiledb"},
    "hostdump": {"firmware", "isa", "profiledb"},
    # The run ties the machine and the daemon together (hostdump/run/README.md).
    "hostdump/run": {"firmware", "isa", "profiledb", "symbols", "hostdump", "qemu/host",
                     "qemu/bundle"},
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
    "analysis/cli": {"isa", "firmware", "hostdump", "profiledb", "symbols", "analysis"},
    "tests": None,  # host tests may include anything
}
# Include prefixes (a folder or one header) a room and all its sub-rooms must
# not include even where ALLOWED lets them into the room around: the tools
# never start QEMU or speak a transport; they call the run (hostdump/run/).
FORBIDDEN = {
    "analysis": ("qemu", "hostdump/gdb", "hostdump/serial", "hostdump/session.h"),
}
# Single headers that open a door between two rooms.
DOORS = {
    # chain_layout.h: the offsets of kernel::Process the chain capture's
    # assembly reads; the kernel static_asserts them against its layout.
    "kernel": {"driver/driver.h", "driver/kernel_services.h", "driver/chain_layout.h"},
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


def forbidden(path, include):
    """The FORBIDDEN prefix `include` falls under for the file at `path`, if any."""
    for room, prefixes in FORBIDDEN.items():
        if path.startswith(room + "/"):
            for prefix in prefixes:
                if include == prefix or include.startswith(prefix + "/"):
                    return prefix
    return None


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
                    banned = forbidden(path, include)
                    if banned and os.path.exists(os.path.join(root, include)):
                        yield f"{path}:{number}: {path.split('/')[0]}/ must not include {banned}"
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
        "qemu/machine/truth/truth_writer.cpp": ['#include "qemu/machine/plugins/ev5/tlb.h"',
                                                '#include "firmware/truth_format.h"',
                                                '#include "isa/stall_causes.h"'],
        "qemu/machine/plugins/exec_counts.cpp": ['#include "qemu/machine/truth/truth_writer.h"'],
        "qemu/machine/truth/truth_writer.h": [], "qemu/machine/plugins/ev5/tlb.h": [],
        "firmware/truth_format.h": [], "isa/stall_causes.h": [],
        "palcode/pal.S": ['#include "../kernel/process.h"', '#include "firmware/pal_abi.h"'],
        "firmware/pal_abi.h": [],
        "kernel/process.h": [], "driver/driver.h": [], "driver/percpu.h": [],
        "symbols/elf_image.h": [], "hostdump/ingest.h": [],
        "hostdump/values/concise_sample.h": [], "hostdump/row_accumulator.h": [],
        "firmware/crc32c.h": [], "profiledb/container.h": [],
        "analysis/cli/cli_options.h": [],
        # The run: may reach the machine, the transports and symbols, never analysis/.
        "hostdump/run/profiled_run.cpp": ['#include "qemu/host/qemu_session.h"',
                                          '#include "hostdump/gdb/ring_source.h"',
                                          '#include "symbols/elf_image.h"',
                                          '#include "analysis/cli/cli_options.h"'],
        # The bundler reads ELF through symbols/; qemu/host still may not.
        "qemu/bundle/elf_facts.cpp": ['#include "symbols/elf_image.h"'],
        "qemu/host/machine_config.cpp": ['#include "symbols/elf_image.h"'],
        # analysis/ calls the run, never QEMU or a transport, however deep.
        "analysis/cli/run.cpp": ['#include "hostdump/run/profiled_run.h"',
                                 '#include "qemu/host/qemu_session.h"',
                                 '#include "hostdump/session.h"',
                                 '#include "hostdump/gdb/ring_source.h"',
                                 '#include "hostdump/serial/stream_source.h"',
                                 '#include "hostdump/profile_builder.h"'],
        "analysis/calc/frontend/inputs.h": ['#include "qemu/bundle/program_bundle.h"'],
        "qemu/host/qemu_session.h": [], "hostdump/session.h": [],
        "hostdump/gdb/ring_source.h": [], "hostdump/serial/stream_source.h": [],
        "hostdump/run/profiled_run.h": [], "hostdump/profile_builder.h": [],
        "qemu/bundle/program_bundle.h": [],
        "analysis/samples/sample_set.h": [],
        "analysis/reports/json_writer.h": [], "analysis/reports/report_output.h": [],
        "analysis/html/html_text.h": [],
        "analysis/calc/estimate/cfg.h": [], "analysis/calc/model/processor_model.h": [],
    }
    expected = {"driver/handler.cpp:1", "kernel/main.cpp:1", "hostdump/ingest.cpp:1",
                "hostdump/run/profiled_run.cpp:4", "qemu/host/machine_config.cpp:1",
                "analysis/cli/run.cpp:2", "analysis/cli/run.cpp:3", "analysis/cli/run.cpp:4",
                "analysis/cli/run.cpp:5", "analysis/calc/frontend/inputs.h:1",
                "qemu/machine/truth/truth_writer.cpp:1",
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
        lines = list(violations(root))
        if not any("analysis/ must not include qemu" in v for v in lines):
            print("layering self-test: a FORBIDDEN include does not name its rule")
            return 1
    if found != expected:
        print(f"layering self-test: expected {sorted(expected)}, found {sorted(found)}")
        return 1
    print(f"layering self-test: {len(expected)} planted violations caught, none invented")
    return 0


TABLE_BEGIN = "<!-- arrows: generated by tests/layering/check_layering.py --table -->"
TABLE_END = "<!-- arrows: end -->"


def arrow_table():
    """The rules as the markdown table docs/architecture.md shows (one source)."""
    rows = ["| room | may include | never |", "|---|---|---|"]
    for room, targets in ALLOWED.items():  # in the order of a sample's journey
        if targets is None:
            allowed = "anything"
        else:
            names = sorted(targets) + sorted(DOORS.get(room, ()))
            allowed = ", ".join(f"`{n}`" for n in names) or "nothing else"
        never = ", ".join(f"`{n}`" for outer, prefixes in FORBIDDEN.items()
                          if room == outer or room.startswith(outer + "/") for n in prefixes)
        rows.append(f"| `{room}/` | {allowed} | {never} |")
    return "\n".join(rows)


def check_doc(path):
    """The doc's table must be the generated one: the arrows are written once."""
    with open(path) as f:
        text = f.read()
    if TABLE_BEGIN not in text or TABLE_END not in text:
        print(f"{path}: no generated arrow table ({TABLE_BEGIN})")
        return 1
    shown = text.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0].strip()
    if shown != arrow_table():
        print(f"{path}: the arrow table differs from the rules; paste the output of "
              f"check_layering.py --table between its markers")
        return 1
    print(f"{path}: the arrow table matches the rules")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) == 2 and sys.argv[1] == "--table":
        print(arrow_table())
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--check-doc":
        return check_doc(sys.argv[2])
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = list(violations(sys.argv[1]))
    for v in found:
        print(v)
    print(f"layering: {len(found)} violation(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
