"""Per-procedure IMISS samples and truth of one ev5 run, for bench_imiss.py
(DCPI Figure 10; issue 26). Works on a bundled workload and on a mix with
shared libraries alike: every image is found by its build-id in the run's
build-id cache (symbols/build_id_cache.h), the truth's user PCs are moved to
ELF addresses through the `map` lines of their address space (version 5,
docs/exec-counts-format.md), and its shared lines (kernel, PALcode) are
looked up in the shared images.

A row: (image path, procedure) -> Row, summed over every process that maps
the image, as dcpiprof sums an image's samples (seed 000 §3)."""
import bisect
import os
from dataclasses import dataclass

from support import truth_file
from support.common import nm

SHARED = "shared"  # the truth's lines before the first `space` line


@dataclass
class Row:
    imiss_samples: int = 0
    cycle_samples: int = 0
    true_misses: int = 0
    true_stall_cycles: int = 0  # stall lines of cause icache
    true_cycles: int = 0  # cycles lines: the procedure's share of the run's time


class Procedures:
    """ELF address -> procedure name of one image (its function symbols; the
    dynamic table when the image has no .symtab)."""

    def __init__(self, elf):
        rows = self._functions(elf, dynamic=False) or self._functions(elf, dynamic=True)
        self.starts = [a for a, _, _ in rows]
        self.rows = rows

    @staticmethod
    def _functions(elf, dynamic):
        return sorted((a, s, n) for a, s, t, n in nm(elf, dynamic=dynamic)
                      if s and t.lower() == "t")

    def name(self, address):
        i = bisect.bisect_right(self.starts, address) - 1
        if i < 0:
            return None
        start, size, name = self.rows[i]
        return name if address < start + size else None


def _address(value):
    return value if isinstance(value, int) else int(value, 16)


class RunProcedures:
    """The rows of one run: its exported samples against its truth file."""

    def __init__(self, samples, truth_path, build_id_dir):
        self.build_id_dir = build_id_dir
        self.symbols = {}  # build-id -> Procedures or None (not in the cache)
        self.rows = {}
        self._images = {}  # guest path -> build-id, from the truth's image lines
        sections, maps = self._read_truth(truth_path)
        self._shared = [b for b, path in self._images.items()
                        if os.path.basename(path) in ("kernel.elf", "palcode.elf")]
        for sample in samples:
            column = {"imiss": "imiss_samples", "cycles": "cycle_samples"}.get(sample["event"])
            if column:
                self._add(sample["build_id"], sample["image_path"],
                          _address(sample["address"]), column, sample["count"])
        for section, lines in sections.items():
            place = self._shared_place if section == SHARED else \
                self._space_place(maps.get(section, []))
            for column, per_pc in lines.items():
                for pc, n in per_pc.items():
                    found = place(pc)
                    if found:
                        self._add(*found, column, n)

    def _read_truth(self, path):
        """({section: {column: {pc: n}}}, {(pid, generation): [(load, size, link,
        build-id, path)]})."""
        sections, maps, current = {}, {}, SHARED
        kinds = {"cycles": "true_cycles"}
        for _, kind, fields, _ in truth_file.records(path):
            if kind == "image":
                self._images[fields[0]] = fields[1]
            elif kind == "space":
                current = (int(fields[0]), int(fields[1]))
            elif kind == "map":
                load, size, link = (int(f, 16) for f in fields[2:5])
                maps.setdefault((int(fields[0]), int(fields[1])), []).append(
                    (load, size, link, fields[5], fields[6]))
            else:
                column, count = None, None
                if kind in kinds:
                    column, count = kinds[kind], fields[1]
                elif kind == "pcevent" and fields[1] == "imiss":
                    column, count = "true_misses", fields[2]
                elif kind == "stall" and fields[1] == "icache":
                    column, count = "true_stall_cycles", fields[2]
                if column:
                    per_pc = sections.setdefault(current, {}).setdefault(column, {})
                    pc = int(fields[0], 16)
                    per_pc[pc] = per_pc.get(pc, 0) + int(count)
        return sections, maps

    def _shared_place(self, pc):
        for build_id in self._shared:
            if self._procedures(build_id) and self._procedures(build_id).name(pc):
                return build_id, self._images[build_id], pc
        return None

    def _space_place(self, space_maps):
        def place(pc):
            for load, size, link, build_id, path in space_maps:
                if load <= pc < load + size:
                    return build_id, path, pc - load + link
            return None

        return place

    def _procedures(self, build_id):
        if build_id not in self.symbols:
            elf = os.path.join(self.build_id_dir, build_id, "elf")
            self.symbols[build_id] = Procedures(elf) if os.path.exists(elf) else None
        return self.symbols[build_id]

    def _add(self, build_id, path, address, column, n):
        procedures = self._procedures(build_id)
        name = procedures.name(address) if procedures else None
        if name:
            row = self.rows.setdefault((os.path.basename(path), name), Row())
            setattr(row, column, getattr(row, column) + n)
