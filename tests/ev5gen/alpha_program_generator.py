#!/usr/bin/env python3
"""A seeded generator of random Alpha programs for the ev5 machine's property test (issue 25).

Why: the ev5 machine charges the 21164 model's cycles to the guest clock, so
the driver's samples must land on instructions in proportion to the truth's
cycles. Hand-written workloads exercise few instruction mixes; a generator
covers many (straight-line integer code, loops, loads and stores that hit,
miss every cache level or miss the DTB, multiplies, divides through GCC's
__divq/__remq, long-latency FP, data-dependent branches, jump tables, calls
and returns, CALL_PAL, unaligned accesses) and each seed gives one program.

What: `generate(seed)` returns a `Program`: one C file for the bare-metal
newlib runtime (build/guest/dcpi-newlib-gcc) holding `main` and top-level
`__asm__` functions, plus a map from each generated function to the feature
it exercises. The same seed always gives the same bytes
(`random.Random(seed)`, no other source of entropy). The program is
deterministic and prints one checksum line per function and one for its
memory, so its output under our guest can be compared with `qemu-alpha`'s.

Only 21164 (EV5) instructions are emitted (no BWX, FIX or CIX), and only
native instructions: GCC's output is assembled under `.set noat` and
`.set nomacro`. The kernel does not fix up unaligned accesses (SIGBUS), so
unaligned data is reached with ldq_u/extql/extqh and insql/mskql/stq_u.

Usage: alpha_program_generator.py SEED OUT.c [MAP.json]
"""
import json
import random
import sys
from dataclasses import dataclass, field

# Dynamic instructions the whole program aims for (issue 25: one ev5 run < 60 s).
TOTAL_INSTRUCTIONS = (20_000_000, 40_000_000)
BUFFER_BYTES = 16 << 20  # the data every function strides over (> the 2 MB B-cache)
SMALL_BYTES = 4096  # a region that stays in the 8 KB D-cache
PAGE = 8192

# Integer temporaries a function may clobber freely ($0 is the accumulator,
# $16 the trip count, $17 the buffer, $18 the seed; $22-$27 have roles below).
POOL = ["$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$19", "$20", "$21"]
CURSOR, INDEX, INNER, BASE = "$22", "$23", "$24", "$27"

ALU_RR = ["addq", "subq", "addl", "subl", "and", "bis", "xor", "bic", "ornot", "eqv",
          "s4addq", "s8addq", "s4subq", "cmpeq", "cmplt", "cmpult", "cmple", "cmpule",
          "zapnot", "zap", "extbl", "extwl", "insbl", "mskbl", "cmovne", "cmoveq",
          "cmovlbs", "cmovgt"]
SHIFTS = ["sll", "srl", "sra"]
FEATURES = ["alu", "loop", "load_hit", "load_miss", "dtb", "mul", "div", "fp", "branch",
            "jumptable", "call", "callpal", "unaligned"]


@dataclass
class Function:
    """One generated function: its name, feature, source text and dynamic size."""
    name: str
    feature: str
    text: str
    trips: int
    language: str = "asm"
    helpers: list = field(default_factory=list)  # procedures it calls, same feature
    params: dict = field(default_factory=dict)


@dataclass
class Program:
    seed: int
    source: str
    functions: list

    def feature_map(self):
        """Function (and helper) name -> feature, for placement_check.py."""
        table = {}
        for f in self.functions:
            table[f.name] = f.feature
            for h in f.helpers:
                table[h] = f.feature
        return {"seed": self.seed, "functions": table,
                "calls": [{"name": f.name, "feature": f.feature, "trips": f.trips,
                           "language": f.language, "params": f.params}
                          for f in self.functions]}


class Asm:
    """Lines of one assembly function, written as C string literals."""

    def __init__(self):
        self.lines = []

    def __call__(self, text):
        self.lines.append(text)

    def label(self, name):
        self.lines.append(f"{name}:")

    def c_literal(self):
        return "\n".join(f'    "{line}\\n"' if line.endswith(":") else f'    "        {line}\\n"'
                         for line in self.lines)


def random_alu(rng, asm, regs, count):
    """`count` random integer operations over `regs` (1-cycle and shift class)."""
    for _ in range(count):
        dst, a = rng.choice(regs), rng.choice(regs)
        b = str(rng.randrange(256)) if rng.random() < 0.3 else rng.choice(regs)
        if rng.random() < 0.15:
            asm(f"{rng.choice(SHIFTS)} {a}, {rng.randrange(1, 64)}, {dst}")
        else:
            asm(f"{rng.choice(ALU_RR)} {a}, {b}, {dst}")


def fold(asm, regs):
    """Mixes registers into the accumulator $0 so their values reach the checksum."""
    for r in regs:
        asm(f"xor $0, {r}, $0")
        asm("s4addq $0, $0, $0")


def init_pool(rng, asm, regs, source="$18"):
    """Derives each pool register from the seed argument."""
    for r in regs:
        asm(f"addq {source}, {rng.randrange(1, 256)}, {r}")
        asm(f"sll {r}, {rng.randrange(1, 40)}, {r}")
        asm(f"xor {r}, {source}, {r}")


def load_constant(asm, reg, value):
    """reg = value (0 <= value < 2**31) with ldah/lda, no macros."""
    low = value & 0xFFFF
    if low >= 0x8000:
        low -= 0x10000
    high = (value - low) >> 16
    asm(f"ldah {reg}, {high}($31)")
    asm(f"lda {reg}, {low}({reg})")


def begin(asm, name, frame=0, push=True):
    if push:
        asm(".pushsection .text")
    asm(".align 4")
    asm(f".globl {name}")
    asm(f".ent {name}")
    asm.label(name)
    asm(f".frame $30, {frame}, $26, 0")
    asm(".prologue 0")


def begin_over_small_region(rng, asm, name, regs):
    """The preamble of a function that walks the small region: its base in
    v0, the pool from it, the index cleared and the wrap mask in $25."""
    begin(asm, name)
    asm("mov $18, $0")
    init_pool(rng, asm, regs)
    asm(f"clr {INDEX}")
    load_constant(asm, "$25", SMALL_BYTES - 1)


def end(asm, name):
    asm("ret $31, ($26), 1")
    asm(f".end {name}")
    asm(".popsection")


def counted_loop(asm, name, body):
    """for (; $16 != 0; $16--) body(); the trip count is the caller's."""
    asm.label(f"$L{name}_top")
    body()
    asm("subq $16, 1, $16")
    asm(f"bne $16, $L{name}_top")


def advance_index(asm, step):
    """Moves the data index by `step` bytes, wrapped to the array ($25 is its mask)."""
    asm(f"lda {INDEX}, {step}({INDEX})")
    asm(f"and {INDEX}, $25, {INDEX}")


def loop_and_return(asm, name, body, regs):
    """The function's counted loop, its registers folded into $0, the return."""
    counted_loop(asm, name, body)
    fold(asm, regs)
    end(asm, name)


def gen_alu(rng, name):
    asm, regs = Asm(), rng.sample(POOL, rng.randrange(4, len(POOL) + 1))
    size = rng.randrange(8, 48)
    begin(asm, name)
    asm("mov $18, $0")
    init_pool(rng, asm, regs)
    counted_loop(asm, name, lambda: (random_alu(rng, asm, regs, size), fold(asm, regs[:1])))
    fold(asm, regs)
    end(asm, name)
    return asm, size + 4, {"block": size}


def gen_loop(rng, name):
    """Nested loops: an inner loop of a few trips around a short block."""
    asm, regs = Asm(), rng.sample(POOL, 5)
    inner, size = rng.randrange(2, 24), rng.randrange(2, 12)
    begin(asm, name)
    asm("mov $18, $0")
    init_pool(rng, asm, regs)

    def body():
        asm(f"lda {INNER}, {inner}($31)")
        asm.label(f"$L{name}_inner")
        random_alu(rng, asm, regs, size)
        asm(f"subq {INNER}, 1, {INNER}")
        asm(f"bgt {INNER}, $L{name}_inner")
        fold(asm, regs[:1])

    loop_and_return(asm, name, body, regs)
    return asm, inner * (size + 2) + 5, {"inner_trips": inner, "block": size}


def strided(rng, name, kind, stride, region, accesses):
    """Loads and stores at CURSOR = buffer + INDEX, INDEX advancing by `stride` mod `region`."""
    asm, regs = Asm(), rng.sample(POOL, 5)
    filler = rng.randrange(0, 6)
    begin(asm, name)
    asm("mov $18, $0")
    init_pool(rng, asm, regs)
    asm(f"clr {INDEX}")
    load_constant(asm, "$25", region - 1)
    if kind == "load_miss":
        asm("ldah $17, 128($17)")  # 8 MB .. 12 MB of the buffer, past the other regions

    def body():
        asm(f"addq $17, {INDEX}, {CURSOR}")
        for k in range(accesses):
            offset = 8 * rng.randrange(0, 4)
            if rng.random() < 0.65:
                asm(f"ldq {regs[k % 5]}, {offset}({CURSOR})")
            else:
                asm(f"stq {regs[k % 5]}, {offset}({CURSOR})")
            random_alu(rng, asm, regs, filler)
            if k + 1 < accesses:
                step = stride if kind != "load_hit" else 8 * rng.randrange(1, 8)
                asm(f"lda {CURSOR}, {step}({CURSOR})")
        fold(asm, regs[:2])
        advance = stride * accesses
        if advance >= 32768:
            load_constant(asm, "$28", advance)
        else:
            asm(f"lda $28, {advance}($31)")
        asm(f"addq {INDEX}, $28, {INDEX}")
        asm(f"and {INDEX}, $25, {INDEX}")

    loop_and_return(asm, name, body, regs)
    return asm, accesses * (filler + 2) + 12, {"stride": stride, "region": region,
                                               "accesses": accesses}


def gen_load_hit(rng, name):
    return strided(rng, name, "load_hit", 8 * rng.randrange(1, 8), SMALL_BYTES,
                   rng.randrange(2, 8))


def gen_load_miss(rng, name):
    stride = 64 * rng.randrange(1, 40) * 2 + 64  # odd multiples of 64: every line, every set
    return strided(rng, name, "load_miss", stride, 4 << 20, rng.randrange(1, 5))


def gen_dtb(rng, name):
    stride = PAGE + 64 * rng.randrange(0, 16)  # a new page each access, lines spread over sets
    pages = rng.choice([128, 256, 512])
    return strided(rng, name, "dtb", stride, pages * PAGE, rng.randrange(1, 5))


def gen_mul(rng, name):
    asm, regs = Asm(), rng.sample(POOL, 6)
    size = rng.randrange(3, 12)
    begin(asm, name)
    asm("mov $18, $0")
    init_pool(rng, asm, regs)

    def body():
        for _ in range(size):
            op = rng.choice(["mull", "mulq", "umulh", "mulq", "umulh"])
            asm(f"{op} {rng.choice(regs)}, {rng.choice(regs)}, {rng.choice(regs)}")
            random_alu(rng, asm, regs, rng.randrange(0, 3))
            asm(f"bis {regs[0]}, 1, {regs[0]}")  # keep a factor odd: products stay non-zero
        fold(asm, regs[:1])

    loop_and_return(asm, name, body, regs)
    return asm, size * 3 + 4, {"multiplies": size}


def gen_fp(rng, name):
    """Chains x = (x * a + b) / c with a < c: bounded, never denormal, never a trap."""
    asm = Asm()
    chains = rng.randrange(1, 4)
    consts = [(rng.uniform(0.5, 1.5), rng.uniform(0.5, 2.0), rng.uniform(1.6, 3.0))
              for _ in range(chains)]
    use_divs = [rng.random() < 0.4 for _ in range(chains)]
    asm(".pushsection .text")  # the constants first: ldt needs their offset when assembled
    asm(".align 3")
    asm.label(f"$L{name}_const")
    for a, b, c in consts:
        x0 = b / (c - a)  # near the fixed point
        asm(f".double {x0 * 1.01!r}, {a!r}, {b!r}, {c!r}")
    begin(asm, name, push=False)
    asm("mov $18, $0")
    asm(f"br {BASE}, $L{name}_base")
    asm.label(f"$L{name}_base")
    asm(f"lda $28, $L{name}_const-$L{name}_base({BASE})")
    for i in range(chains):
        x, a, b, c = (f"$f{10 + 4 * i + k}" for k in range(4))
        for reg, off in ((x, 0), (a, 8), (b, 16), (c, 24)):
            asm(f"ldt {reg}, {32 * i + off}($28)")

    def body():
        for i in range(chains):
            x, a, b, c = (f"$f{10 + 4 * i + k}" for k in range(4))
            asm(f"mult {x}, {a}, {x}")
            asm(f"addt {x}, {b}, {x}")
            if use_divs[i]:
                asm(f"cvtts {x}, {x}")
                asm(f"divs {x}, {c}, {x}")
            else:
                asm(f"divt {x}, {c}, {x}")
        random_alu(rng, asm, ["$1", "$2", "$3"], rng.randrange(0, 4))

    asm("clr $1")
    asm("clr $2")
    asm("clr $3")
    counted_loop(asm, name, body)
    asm("lda $30, -16($30)")
    for i in range(chains):
        asm(f"stt $f{10 + 4 * i}, 0($30)")
        asm("ldq $4, 0($30)")
        asm("xor $0, $4, $0")
        asm("s4addq $0, $0, $0")
    asm("lda $30, 16($30)")
    fold(asm, ["$1"])
    end(asm, name)
    return asm, chains * 4 + 5, {"chains": chains, "divs": sum(use_divs)}


def gen_branch(rng, name):
    """Data-dependent branches on random words of the small region."""
    asm, regs = Asm(), rng.sample(POOL, 5)
    branches = rng.randrange(1, 5)
    begin_over_small_region(rng, asm, name, regs)

    def body():
        asm(f"addq $17, {INDEX}, {CURSOR}")
        for k in range(branches):
            asm(f"ldq $28, {8 * k}({CURSOR})")
            bit = rng.randrange(0, 64)
            asm(f"srl $28, {bit}, $28")
            asm(f"{rng.choice(['blbs', 'blbc'])} $28, $L{name}_skip{k}")
            random_alu(rng, asm, regs, rng.randrange(1, 5))
            asm.label(f"$L{name}_skip{k}")
            random_alu(rng, asm, regs, rng.randrange(1, 3))
        fold(asm, regs[:1])
        advance_index(asm, 8 * branches + 8)

    loop_and_return(asm, name, body, regs)
    return asm, branches * 6 + 8, {"branches": branches}


def gen_jumptable(rng, name):
    """A switch: ldl an offset from a table, addq the base, jmp; the index from data."""
    asm, regs = Asm(), rng.sample(POOL, 4)
    cases = rng.choice([2, 4, 8])
    begin_over_small_region(rng, asm, name, regs)
    asm(f"br {BASE}, $L{name}_base")
    asm.label(f"$L{name}_base")

    def body():
        asm(f"addq $17, {INDEX}, {CURSOR}")
        asm(f"ldq $28, 0({CURSOR})")
        asm(f"and $28, {cases - 1}, $28")
        asm(f"lda {INNER}, $L{name}_table-$L{name}_base({BASE})")
        asm(f"s4addq $28, {INNER}, $28")
        asm("ldl $28, 0($28)")
        asm(f"addq $28, {BASE}, $28")
        asm("jmp $31, ($28), 0")
        for k in range(cases):
            asm.label(f"$L{name}_case{k}")
            random_alu(rng, asm, regs, rng.randrange(1, 6))
            asm(f"br $31, $L{name}_join")
        asm.label(f"$L{name}_join")
        fold(asm, regs[:1])
        advance_index(asm, 8 * rng.randrange(1, 5))

    counted_loop(asm, name, body)
    fold(asm, regs)
    asm("ret $31, ($26), 1")
    asm(".align 2")
    asm.label(f"$L{name}_table")
    for k in range(cases):
        asm(f".long $L{name}_case{k}-$L{name}_base")
    asm(f".end {name}")
    asm(".popsection")
    return asm, 16, {"cases": cases}


def gen_call(rng, name):
    """bsr to one leaf, jsr through a register to another; both ret."""
    asm, regs = Asm(), ["$1", "$2", "$3", "$4"]
    leaves = [f"{name}_leaf{k}" for k in range(2)]
    begin(asm, name, frame=16)
    asm("lda $30, -16($30)")
    asm("stq $26, 0($30)")
    asm("mov $18, $0")
    asm(f"br {BASE}, $L{name}_base")
    asm.label(f"$L{name}_base")
    asm(f"mov {BASE}, {INNER}")

    def body():
        asm(f"bsr $26, {leaves[0]}")
        asm(f"lda {BASE}, {leaves[1]}-$L{name}_base({INNER})")
        asm(f"jsr $26, ({BASE}), 0")
        asm("addq $0, $16, $0")  # the trip count keeps the leaves' state from settling

    counted_loop(asm, name, body)
    asm("ldq $26, 0($30)")
    asm("lda $30, 16($30)")
    end(asm, name)
    sizes = []
    for leaf in leaves:
        size = rng.randrange(2, 10)
        sizes.append(size)
        begin(asm, leaf)
        asm("addq $0, 7, $1")
        asm("srl $0, 3, $2")
        asm("mov $0, $3")
        asm("s4addq $0, 1, $4")
        random_alu(rng, asm, regs, size)
        fold(asm, regs[:2])
        end(asm, leaf)
    return asm, sum(sizes) + 28, {"leaves": sizes, "helpers": leaves}


def gen_callpal(rng, name):
    """callsys getxpid (into PALcode and the kernel) and imb (inlined by QEMU).

    callsys clobbers every caller-saved register, so the loop lives in s0/s1
    ($9/$10, saved on the stack); getxpid's result (a pid) never reaches the
    checksum: it differs between our kernel and qemu-alpha."""
    asm, regs = Asm(), rng.sample(POOL, 3)
    use_imb = rng.random() < 0.5
    begin(asm, name, frame=32)
    asm("lda $30, -32($30)")
    asm("stq $26, 0($30)")
    asm("stq $9, 8($30)")
    asm("stq $10, 16($30)")
    asm("mov $16, $9")
    asm("mov $18, $10")
    asm.label(f"$L{name}_top")
    asm("lda $0, 20($31)")  # SYS_getxpid
    asm("call_pal 0x83")  # callsys
    if use_imb:
        asm("call_pal 0x86")  # imb
    init_pool(rng, asm, regs, source="$10")
    random_alu(rng, asm, regs, rng.randrange(1, 6))
    for r in regs:
        asm(f"xor $10, {r}, $10")
        asm("s4addq $10, $10, $10")
    asm("subq $9, 1, $9")
    asm(f"bne $9, $L{name}_top")
    asm("mov $10, $0")
    asm("ldq $26, 0($30)")
    asm("ldq $9, 8($30)")
    asm("ldq $10, 16($30)")
    asm("lda $30, 32($30)")
    end(asm, name)
    return asm, 400, {"imb": use_imb}  # ~hundreds of kernel instructions per call


def gen_unaligned(rng, name):
    """Misaligned quadword loads (ldq_u, extql, extqh) and stores (insq*, mskq*, stq_u)."""
    asm, regs = Asm(), rng.sample(POOL, 3)
    accesses = rng.randrange(1, 4)
    begin_over_small_region(rng, asm, name, regs)
    t = [r for r in ["$5", "$6", "$7", "$8", "$19", "$20", "$21", "$28"] if r not in regs][:4]

    def body():
        asm(f"addq $17, {INDEX}, {CURSOR}")
        for k in range(accesses):
            offset = 16 * k + rng.randrange(1, 8)
            asm(f"lda {INNER}, {offset}({CURSOR})")
            if rng.random() < 0.6:
                asm(f"ldq_u {t[0]}, 0({INNER})")
                asm(f"ldq_u {t[1]}, 7({INNER})")
                asm(f"extql {t[0]}, {INNER}, {t[0]}")
                asm(f"extqh {t[1]}, {INNER}, {t[1]}")
                asm(f"bis {t[0]}, {t[1]}, {regs[k % 3]}")
            else:
                value = regs[k % 3]
                asm(f"ldq_u {t[1]}, 7({INNER})")
                asm(f"ldq_u {t[0]}, 0({INNER})")
                asm(f"insqh {value}, {INNER}, {t[3]}")
                asm(f"insql {value}, {INNER}, {t[2]}")
                asm(f"mskqh {t[1]}, {INNER}, {t[1]}")
                asm(f"mskql {t[0]}, {INNER}, {t[0]}")
                asm(f"bis {t[1]}, {t[3]}, {t[1]}")
                asm(f"bis {t[0]}, {t[2]}, {t[0]}")
                asm(f"stq_u {t[1]}, 7({INNER})")
                asm(f"stq_u {t[0]}, 0({INNER})")
            random_alu(rng, asm, regs, rng.randrange(0, 3))
        fold(asm, regs[:1])
        advance_index(asm, 16 * accesses + 8)

    loop_and_return(asm, name, body, regs)
    return asm, accesses * 9 + 8, {"accesses": accesses}


def gen_div(rng, name):
    """C divisions: GCC calls __divq/__remq (and __divqu/__remqu, __divl) on Alpha."""
    kinds = rng.sample(["long_div", "long_rem", "ulong_div", "ulong_rem", "int_div"],
                       rng.randrange(1, 4))
    ops = {"long_div": "acc += (long)x / d;", "long_rem": "acc ^= (long)x % d;",
           "ulong_div": "acc += x / (unsigned long)d;", "ulong_rem": "acc ^= x % (unsigned long)d;",
           # | 1: d & 0x7fff is 0 for d = 32768 or 65536 (SIGFPE from __divl)
           "int_div": "acc += (int)x / (int)((d & 0x7fff) | 1);"}
    mask = rng.choice([63, 255, 511])
    lines = [f"__attribute__((noinline)) long {name}(long n, unsigned long *data, long seed) {{",
             "  unsigned long acc = seed;",
             "  for (long i = 0; i < n; i++) {",
             f"    unsigned long x = data[i & {mask}] ^ acc;",
             f"    long d = (long)(data[(i * 7 + 3) & {mask}] & 0xffff) + 1;"]
    lines += [f"    {ops[k]}" for k in kinds]
    lines += ["  }", "  return (long)acc;", "}"]
    return "\n".join(lines), 60 * len(kinds) + 10, {"ops": kinds}


GENERATORS = {"alu": gen_alu, "loop": gen_loop, "load_hit": gen_load_hit,
              "load_miss": gen_load_miss, "dtb": gen_dtb, "mul": gen_mul, "div": gen_div,
              "fp": gen_fp, "branch": gen_branch, "jumptable": gen_jumptable, "call": gen_call,
              "callpal": gen_callpal, "unaligned": gen_unaligned}


def choose_features(rng):
    """Each feature with probability 3/4 (at least four), some twice, in a random order."""
    chosen = [f for f in FEATURES if rng.random() < 0.75]
    while len(chosen) < 4:
        extra = rng.choice(FEATURES)
        if extra not in chosen:
            chosen.append(extra)
    chosen += [rng.choice(chosen) for _ in range(rng.randrange(0, 3))]
    rng.shuffle(chosen)
    return chosen


def make_function(rng, index, feature, budget):
    name = f"g{index}_{feature}"
    made, per_trip, params = GENERATORS[feature](rng, name)
    cap = 20_000 if feature == "callpal" else 10_000_000  # each callsys ~1 us under qemu-alpha
    trips = max(1, min(cap, budget // per_trip))
    helpers = params.pop("helpers", [])
    if isinstance(made, str):
        return Function(name, feature, made, trips, "c", helpers, params)
    return Function(name, feature, made.c_literal(), trips, "asm", helpers, params)


MAIN_PROLOGUE = """/* Generated by tests/ev5gen/alpha_program_generator.py, seed {seed}: do not edit.
   Functions and features: {summary}. */
#include <stdio.h>

#define WORDS ({buffer} / 8)
static unsigned long buffer[WORDS] __attribute__((aligned(8192)));

static unsigned long next_random(unsigned long *state) {{
  *state = *state * 6364136223846793005UL + 1442695040888963407UL;
  return *state ^ (*state >> 29);
}}
"""

MAIN_BODY = """
int main(void) {{
  unsigned long state = {seed}UL * 2654435761UL + 1;
  for (long i = 0; i < {small_words}; i++) buffer[i] = next_random(&state);
  unsigned long all = 0;
{calls}
  unsigned long memory = 0;
  for (long i = 0; i < WORDS; i += 8) memory = memory * 31 + buffer[i];
  for (long i = 0; i < {small_words}; i++) memory = memory * 31 + buffer[i];
  printf("memory %016lx\\n", memory);
  printf("all %016lx\\n", all ^ memory);
  return 0;
}}
"""


def render(seed, functions):
    """The C file: declarations, the asm and C functions, and main's calls."""
    summary = ", ".join(f"{f.name}" for f in functions)
    parts = [MAIN_PROLOGUE.format(seed=seed, summary=summary, buffer=BUFFER_BYTES)]
    for f in functions:
        if f.language == "c":
            parts.append(f.text + "\n")
        else:
            parts.append(f"long {f.name}(long n, unsigned long *data, long seed);\n"
                         f"__asm__(\n{f.text});\n")
    calls = []
    for f in functions:
        calls.append(f"  {{ long r = {f.name}({f.trips}L, buffer, {seed % 9973 + 17}L);\n"
                     f"    printf(\"{f.name} %016lx\\n\", (unsigned long)r);\n"
                     f"    all = all * 33 + (unsigned long)r; }}")
    parts.append(MAIN_BODY.format(seed=seed, small_words=SMALL_BYTES // 8 * 4,
                                  calls="\n".join(calls)))
    return "".join(parts)


def generate(seed):
    """The program for `seed` (the same bytes every time)."""
    rng = random.Random(seed)
    features = choose_features(rng)
    total = rng.randrange(*TOTAL_INSTRUCTIONS)
    weights = [rng.uniform(0.5, 1.5) for _ in features]
    budgets = [int(total * w / sum(weights)) for w in weights]
    functions = [make_function(rng, i, f, b) for i, (f, b) in enumerate(zip(features, budgets))]
    return Program(seed, render(seed, functions), functions)


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[-1])
    program = generate(int(argv[1]))
    with open(argv[2], "w") as out:
        out.write(program.source)
    if len(argv) == 4:
        with open(argv[3], "w") as out:
            json.dump(program.feature_map(), out, indent=1, sort_keys=True)
            out.write("\n")


if __name__ == "__main__":
    main(sys.argv)
