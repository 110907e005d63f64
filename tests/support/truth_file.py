"""The truth file (docs/exec-counts-format.md) for the Python tests: the one
reader the guest tests and benchmarks share. Its version and record kinds are
read from firmware/truth_format.h, the header the plugins' writer and the
C++ reader (analysis/calc/truth/) include, so the three cannot drift apart.

Like the C++ reader it rejects a newer version, or a record kind the file's
version does not have, with an error naming the file and the line; it checks
field counts but leaves value checks to the C++ reader (unit-tested there).

    truth = truth_file.read(path)
    truth.version, truth.machine, truth.vcpus, truth.images
    truth.instructions[pc], truth.edges[(src, dst)], truth.cycles[pc]
    truth.stalls: [(pc, cause, cycles, culprit or None)], truth.events[name]
    truth.visible[pc] (version 4: the cycles a sample could land on)
    truth.spaces[(pid, generation)]: that address space's own instructions
    (version 5: user PCs per address space; the maps above sum them all),
    truth.maps: [(pid, generation, load, size, link, build-id, path)]
    truth.pc_events[name][pc] (version 6: each counter event per PC, every
    space summed; truth.events[name] is their whole-run sum)
    truth.space_events[(pid, generation)][name]: that space's user-mode
    events (its pcevent lines summed; what dcpi stat counts per process)
    truth.space_pc_events[(pid, generation)][name][pc]: that space's own
    pcevent lines
    truth.space_stalls[(pid, generation)][cause]: that space's stall cycles
    per cause word (its stall lines summed; dcpi stat --truth prints them)
"""
import os
import re

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "firmware",
                      "truth_format.h")


def _format():
    """(magic, newest version, {kind: (first version, low fields, high fields)})."""
    with open(HEADER) as f:
        text = f.read()
    magic = re.search(r'#define DCPI_TRUTH_MAGIC "([^"]+)"', text).group(1)
    newest = int(re.search(r"#define DCPI_TRUTH_VERSION_NEWEST (\d+)", text).group(1))
    kinds = {}
    for word, since, fields in re.findall(r'X\(\w+, "(\w+)", (\d+), "([^"]*)"\)', text):
        names = fields.split()
        kinds[word] = (int(since), sum(not n.startswith("[") for n in names), len(names))
    alias = re.search(r'#define DCPI_TRUTH_CPUS_ALIAS "(\w+)"', text).group(1)
    kinds[alias] = kinds["vcpus"]
    return magic, newest, kinds


MAGIC, NEWEST_VERSION, KINDS = _format()


class TruthFileError(ValueError):
    pass


class Truth:
    def __init__(self):
        self.version = 0
        self.machine = "qemu"  # version 1 files: qemu
        self.vcpus = 0
        self.instructions = {}  # pc -> executions
        self.edges = {}  # (from, to) -> count, to != from + 4
        self.cycles = {}  # pc -> cycles at the head of the issue queue (timed machines)
        self.stalls = []  # (pc, cause, cycles, culprit or None), in file order
        self.events = {}  # name -> count
        self.images = []  # (build-id or "-", guest path): version 3, the run's images
        self.visible = {}  # pc -> cycles a sample could land on: version 4, sampling runs
        self.spaces = {}  # (pid, generation) -> {pc: executions}: version 5
        self.maps = []  # (pid, generation, load, size, link, build-id, path): version 5
        self.pc_events = {}  # name -> {pc: count}: version 6
        self.space_events = {}  # (pid, generation) -> {name: count}: version 6
        self.space_pc_events = {}  # (pid, generation) -> {name: {pc: count}}
        self.space_stalls = {}  # (pid, generation) -> {cause: cycles}: version 5


def records(path):
    """Yields (line number, kind, fields, line) for every record after the
    header, checked against the header's version."""
    with open(path) as f:
        version = None
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if version is None:
                version = _version(path, number, words)
                continue
            kind, fields = words[0], words[1:]
            if kind not in KINDS:
                raise TruthFileError(f"{path}: line {number}: unknown line kind '{kind}'")
            since, low, high = KINDS[kind]
            if since > version:
                raise TruthFileError(f"{path}: line {number}: '{kind}' needs version {since}")
            if not low <= len(fields) <= high:
                raise TruthFileError(f"{path}: line {number}: '{kind}' takes {low}-{high} "
                                     f"fields, not {len(fields)}")
            yield number, kind, fields, line
        if version is None:
            raise TruthFileError(f"{path}: empty file: expected '{MAGIC} N'")


def _version(path, number, words):
    if len(words) != 2 or words[0] != MAGIC or not words[1].isdigit():
        raise TruthFileError(f"{path}: line {number}: expected '{MAGIC} N'")
    version = int(words[1])
    if version < 1:
        raise TruthFileError(f"{path}: line {number}: expected '{MAGIC} N'")
    if version > NEWEST_VERSION:
        raise TruthFileError(f"{path}: line {number}: version {version} is newer than this "
                             f"reader knows (1 to {NEWEST_VERSION}): a newer dcpi wrote it")
    return version


def version(path):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if words:
                return _version(path, number, words)
    raise TruthFileError(f"{path}: empty file: expected '{MAGIC} N'")


def read(path):
    truth = Truth()
    truth.version = version(path)
    space = None
    space_key = None
    for _, kind, fields, _ in records(path):
        if kind == "image":
            truth.images.append((fields[0], fields[1]))
        elif kind == "machine":
            truth.machine = fields[0]
        elif kind in ("vcpus", "cpus"):
            truth.vcpus = int(fields[0])
        elif kind == "insn":
            pc = int(fields[0], 16)
            truth.instructions[pc] = truth.instructions.get(pc, 0) + int(fields[1])
            if space is not None:
                space[pc] = space.get(pc, 0) + int(fields[1])
        elif kind == "space":
            space_key = (int(fields[0]), int(fields[1]))
            space = truth.spaces.setdefault(space_key, {})
        elif kind == "map":
            truth.maps.append((int(fields[0]), int(fields[1]), int(fields[2], 16),
                               int(fields[3], 16), int(fields[4], 16), fields[5], fields[6]))
        elif kind == "edge":
            key = (int(fields[0], 16), int(fields[1], 16))
            truth.edges[key] = truth.edges.get(key, 0) + int(fields[2])
        elif kind == "cycles":
            pc = int(fields[0], 16)
            truth.cycles[pc] = truth.cycles.get(pc, 0) + int(fields[1])
        elif kind == "stall":
            culprit = int(fields[3], 16) if len(fields) > 3 else None
            truth.stalls.append((int(fields[0], 16), fields[1], int(fields[2]), culprit))
            if space_key is not None:
                stalls = truth.space_stalls.setdefault(space_key, {})
                stalls[fields[1]] = stalls.get(fields[1], 0) + int(fields[2])
        elif kind == "event":
            truth.events[fields[0]] = truth.events.get(fields[0], 0) + int(fields[1])
        elif kind == "pcevent":
            per = truth.pc_events.setdefault(fields[1], {})
            pc = int(fields[0], 16)
            per[pc] = per.get(pc, 0) + int(fields[2])
            if space_key is not None:
                events = truth.space_events.setdefault(space_key, {})
                events[fields[1]] = events.get(fields[1], 0) + int(fields[2])
                own = truth.space_pc_events.setdefault(space_key, {}).setdefault(fields[1], {})
                own[pc] = own.get(pc, 0) + int(fields[2])
        elif kind == "visible":
            pc = int(fields[0], 16)
            truth.visible[pc] = truth.visible.get(pc, 0) + int(fields[1])
    return truth
