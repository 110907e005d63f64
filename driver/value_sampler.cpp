// The value-sampling interpreter hook (seed 001 §2.1.2, §2.3). Runs at IPL 6
// inside the counter-overflow handler, on the interrupted context's full
// TrapFrame (firmware/trap_frame.h). Only user-mode contexts are interpreted: the
// kernel stack is the one this code runs on (seed 001: "a change to the
// kernel stack pointer" is a give-up), and user memory is reached through
// the page tables (translate_user), never by a faulting access.
//
// FP state: user FP registers are live in the FPU while the process runs
// (kernel/scheduler.cpp switches them eagerly with the process, FEN on), and
// the kernel is built -mno-fp-regs, so the handler copies them out with
// fp_save (kernel/switch.S) before a run and back with fp_restore after it
// (fp_save itself clobbers $f0, so the restore is unconditional). The
// interpreter computes FP results in integer software (isa/interp/softfloat.h).
#include "driver/value_sampler.h"

#include "driver/buffer_move.h"
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "driver/percpu.h"
#include "isa/interp/interpreter.h"

namespace dcpi::driver {
namespace {

// Per CPU: a single-producer (this CPU's handler), single-consumer (the
// daemon) ring of quadwords holding whole runs in their wire form
// (firmware/value_tuples.h), so the daemon moves them into the transfer ring
// with one copy.
struct alignas(64) ValueBuffer {
  uint64_t head;  // quadwords; written by the owning CPU's handler
  uint64_t pad0[7];
  uint64_t tail;  // written by the daemon
  uint64_t dropped_taken;
  uint64_t pad1[6];
  uint32_t length, every;
  ValueCapture capture;
  ValueStats stats;
  uint64_t words[kValueBufferWords];
};
static_assert((kValueBufferWords & (kValueBufferWords - 1)) == 0);

ValueBuffer g_values[kMaxCpus];
uint32_t g_length = kDefaultValueLength, g_every = kDefaultValueEvery;
ValueCapture g_capture = default_value_capture();

// Quadwords after the tuple head, by ValueField bits (no per-tuple branches).
constexpr auto kFieldWords = [] {
  struct {
    uint8_t words[128];
  } table{};
  for (uint32_t f = 0; f < 128; ++f) table.words[f] = static_cast<uint8_t>(field_words(f));
  return table;
}();

// What to record for one interpreted instruction (0: nothing).
inline uint8_t fields_of(const ValueCapture& capture, const isa::interp::Step& s) {
  uint8_t f = capture.fields[s.word >> 26];
  if (!(f & kFieldTuple)) return 0;
  if (!s.has_memory) f &= static_cast<uint8_t>(~(kFieldAddress | kFieldLatency));
  if (!s.load) f &= static_cast<uint8_t>(~kFieldLatency);
  // Operands the instruction does not read are not operands (isa::fields_read).
  if (!(s.reads & isa::kReadsA)) f &= static_cast<uint8_t>(~kFieldA);
  if (!(s.reads & isa::kReadsB)) f &= static_cast<uint8_t>(~kFieldB);
  return f;
}

// A page translated for the run: nothing in the run can change the mapping,
// so each page's table walk is done once.
struct PageSeen {
  uint64_t page = ~uint64_t{0};
  uint64_t kseg = 0;
};

// User memory through the page tables of the interrupted process: a page
// that is not present or not accessible stops the run (seed 001 §2.1.2).
// The interpreter times a load around load() (seed 001 §3.3), so under
// QEMU a latency is this path's length: a page the run has seen, or a
// table walk.
struct UserMemory {
  const kernel::AddressSpace* space;
  // The last two pages read: a run's instruction fetches are almost always
  // on one page, its loads often on another (the stack, the data), and one
  // entry would walk the tables again at every switch between them.
  PageSeen read[2];
  PageSeen written;
  static constexpr uint64_t kOffset = kPageBytes - 1;
  uint64_t readable(uint64_t va) {
    const uint64_t page = va & ~kOffset;
    if (page == read[0].page) return read[0].kseg + (va & kOffset);
    if (page == read[1].page) {
      const PageSeen hit = read[1];
      read[1] = read[0], read[0] = hit;
      return hit.kseg + (va & kOffset);
    }
    const uint64_t k = kernel::translate_user(*space, va, false);
    if (k != 0) read[1] = read[0], read[0] = PageSeen{page, k & ~kOffset};
    return k;
  }
  uint64_t writable(uint64_t va) {
    const uint64_t page = va & ~kOffset;
    if (page == written.page) return written.kseg + (va & kOffset);
    const uint64_t k = kernel::translate_user(*space, va, true);
    if (k != 0) written = PageSeen{page, k & ~kOffset};
    return k;
  }
  bool load(uint64_t va, unsigned bytes, uint64_t& value) {
    const uint64_t k = readable(va);
    if (k == 0) return false;
    switch (bytes) {
      case 1:
        value = *reinterpret_cast<const volatile uint8_t*>(k);
        break;
      case 2:
        value = *reinterpret_cast<const volatile uint16_t*>(k);
        break;
      case 4:
        value = *reinterpret_cast<const volatile uint32_t*>(k);
        break;
      default:
        value = *reinterpret_cast<const volatile uint64_t*>(k);
        break;
    }
    return true;
  }
  bool store(uint64_t va, unsigned bytes, uint64_t value) {
    const uint64_t k = writable(va);
    if (k == 0) return false;
    switch (bytes) {
      case 1:
        *reinterpret_cast<volatile uint8_t*>(k) = static_cast<uint8_t>(value);
        break;
      case 2:
        *reinterpret_cast<volatile uint16_t*>(k) = static_cast<uint16_t>(value);
        break;
      case 4:
        *reinterpret_cast<volatile uint32_t*>(k) = static_cast<uint32_t>(value);
        break;
      default:
        *reinterpret_cast<volatile uint64_t*>(k) = value;
        break;
    }
    return true;
  }
  uint64_t cycles() { return pal::rpcc(); }
};

// Whole-block copies between the trap frame's layout (kernel/traps.h) and
// the interpreter's register file: per-register reg(n) lookups were a
// third of the interpreter's cost. r30 (usp) and r31 are not in the frame.
// Unrolled loads and stores, at most eight in flight: GCC would otherwise
// call memcpy for the blocks, or hoist all 29 loads and spill the callee-
// saved registers to hold them (~25 instructions a run).
template <unsigned kCount>
[[gnu::always_inline]] inline void copy_quadwords(const uint64_t* from, uint64_t* to) {
  static_assert(kCount <= 8);
  uint64_t held[kCount];
#pragma GCC unroll 8
  for (unsigned i = 0; i < kCount; ++i) held[i] = from[i];
#pragma GCC unroll 8
  for (unsigned i = 0; i < kCount; ++i) to[i] = held[i];
  __asm__ volatile("" ::: "memory");  // keep the next group's loads after these stores
}

void load_integer_registers(const TrapFrame& frame, isa::interp::Context& ctx) {
  copy_quadwords<8>(frame.r0_to_r15, ctx.r);
  copy_quadwords<8>(frame.r0_to_r15 + 8, ctx.r + 8);
  ctx.r[16] = frame.a0;
  ctx.r[17] = frame.a1;
  ctx.r[18] = frame.a2;
  copy_quadwords<5>(frame.r19_to_r28, ctx.r + 19);
  copy_quadwords<5>(frame.r19_to_r28 + 5, ctx.r + 24);
  ctx.r[29] = frame.gp;
  ctx.r[31] = 0;
}

// Back into the frame: only the registers the run wrote (a run of four
// writes at most four of the 29). The lowest set bit's index by a de Bruijn
// multiply: the 21164 has no cttz, and GCC would call libgcc's.
constexpr uint8_t kDeBruijnIndex[32] = {0,  1,  28, 2,  29, 14, 24, 3,  30, 22, 20,
                                        15, 25, 17, 4,  8,  31, 27, 13, 23, 21, 19,
                                        16, 7,  26, 12, 18, 6,  11, 5,  10, 9};
constexpr bool de_bruijn_indexes_every_bit() {
  for (uint32_t bit = 0; bit < 32; ++bit)
    if (kDeBruijnIndex[((1u << bit) * 0x077CB531u) >> 27] != bit) return false;
  return true;
}
static_assert(de_bruijn_indexes_every_bit());

void store_integer_registers(const isa::interp::Context& ctx, TrapFrame& frame) {
  for (uint32_t w = ctx.written & ~(3u << 30); w != 0; w &= w - 1) {
    const uint32_t r = kDeBruijnIndex[((w & (0u - w)) * 0x077CB531u) >> 27];
    frame.reg(r) = ctx.r[r];
  }
}

// What a run's first quadwords say (firmware/value_tuples.h).
struct RunHead {
  uint16_t pid;
  uint32_t tuples;
  bool context;
  uint32_t done;
  isa::interp::Stop why;
  uint64_t ra, stack_top;
};

// The run in its wire form, through put(word): its head, then a tuple for
// each step with fields. Sized beforehand by the caller (kFieldWords).
template <class Put>
void write_run(Put put, const RunHead& run, const isa::interp::Step* steps, const uint8_t* fields) {
  put(uint64_t{run.pid} | uint64_t{run.tuples} << 16 |
      uint64_t{run.context ? uint32_t{kRunContext} : 0u} << 24 | uint64_t{run.done} << 32 |
      uint64_t{static_cast<uint8_t>(run.why)} << 40);
  if (run.context) put(run.ra), put(run.stack_top);
  for (uint32_t i = 0; i < run.done; ++i) {
    const uint8_t f = fields[i];
    if (f == 0) continue;
    const isa::interp::Step& s = steps[i];
    const uint32_t flags = (s.has_memory ? kTupleMemory : 0) | (s.load ? kTupleLoad : 0) |
                           uint32_t{s.fp_values} << kTupleFpShift;
    put(s.pc);
    put(uint64_t{s.word} | uint64_t{flags} << 32 | uint64_t{f} << 40 | uint64_t{i} << 48);
    if (f & kFieldA) put(s.a);
    if (f & kFieldB) put(s.b);
    if (f & kFieldResult) put(s.result);
    if (f & kFieldAddress) put(s.va);
    if (f & kFieldLatency) put(s.latency);
    if (f & kFieldRegister) put(s.named);
  }
}

}  // namespace

void value_configure(uint32_t length, uint32_t every) {
  g_length = length > kMaxValueLength ? kMaxValueLength : length;
  g_every = every == 0 ? 1 : every;
}

void value_set_capture(const ValueCapture& capture) { g_capture = capture; }

void value_apply(uint32_t cpu) {
  g_values[cpu].length = g_length;
  g_values[cpu].every = g_every;
  g_values[cpu].capture = g_capture;
  g_values[cpu].stats.cpu = cpu;
}

uint32_t value_every(uint32_t cpu) { return g_values[cpu].every; }

void value_sample(CpuHot& hot, TrapFrame* frame) {
  ValueBuffer& vb = g_values[hot.cpu];
  hot.value_countdown = static_cast<uint8_t>(vb.every);  // here, not a call from the handler
  if (frame == nullptr || !(frame->ps & PS_USER_MODE)) {
    ++vb.stats.skipped_kernel;
    return;
  }
  const kernel::AddressSpace* space = kernel::current_user_space();
  if (space == nullptr) return;
  ++vb.stats.runs;
  isa::interp::Context ctx;
  load_integer_registers(*frame, ctx);
  ctx.r[30] = pal::rdusp();
  fp_save(ctx.f);  // f0-f30, then the FPCR into ctx.fpcr (the word after f[31])
  ctx.f[31] = 0;
  ctx.pc = frame->pc;
  ctx.kernel_mode = false;
  ctx.fp_touched = false;
  ctx.written = 0;
  const uint64_t usp = ctx.r[30];
  UserMemory mem{space, {}, {}};
  const ValueCapture& capture = vb.capture;
  uint64_t stack_top = 0;
  if (capture.context && (usp & 7) == 0 && !mem.load(usp, 8, stack_top)) stack_top = 0;
  const uint64_t ra = ctx.r[26];

  isa::interp::Step steps[kMaxValueLength];
  isa::interp::Stop why;
  const uint32_t done = isa::interp::run(ctx, mem, vb.length, steps, &why, capture.named_register);
  ++vb.stats.stops[static_cast<uint32_t>(why) & 7];
  vb.stats.interpreted += done;

  // The context really advanced: write it back (seed 001 §2.1.2).
  store_integer_registers(ctx, *frame);
  if (ctx.r[30] != usp) pal::wrusp(ctx.r[30]);
  frame->pc = ctx.pc;
  // fp_save clobbered $f0; a run that touched no FP state changed nothing else.
  if (ctx.fp_touched)
    fp_restore(ctx.f);
  else
    fp_restore_f0(ctx.f);

  // The run in its wire form: sized first, then written whole or dropped
  // whole, so the daemon only ever sees complete runs.
  uint8_t fields[kMaxValueLength];
  uint32_t words = 1 + (capture.context ? 2 : 0), tuples = 0;
  for (uint32_t i = 0; i < done; ++i) {
    fields[i] = fields_of(capture, steps[i]);
    if (fields[i] != 0) words += 2 + kFieldWords.words[fields[i]], ++tuples;
  }
  if (tuples == 0) return;
  const uint64_t tail = __atomic_load_n(&vb.tail, __ATOMIC_ACQUIRE);
  const uint64_t before = vb.head;
  if (before - tail + words > kValueBufferWords) {
    vb.stats.tuples_dropped += tuples;
    return;
  }
  vb.stats.tuples += tuples;
  const RunHead run{hot.pid, tuples, capture.context != 0, done, why, ra, stack_top};
  const auto offset = static_cast<uint32_t>(before & (kValueBufferWords - 1));
  uint64_t head = before;
  if (offset + words <= kValueBufferWords) {  // the usual case: no wrap, a plain pointer
    uint64_t* const start = vb.words + offset;
    uint64_t* p = start;
    write_run([&p](uint64_t word) { *p++ = word; }, run, steps, fields);
    head += static_cast<uint64_t>(p - start);
  } else {
    write_run([&vb, &head](uint64_t word) { vb.words[head++ & (kValueBufferWords - 1)] = word; },
              run, steps, fields);
  }
  __asm__ volatile("wmb" ::: "memory");
  __atomic_store_n(&vb.head, head, __ATOMIC_RELAXED);
  // Half full: wake the daemon now rather than at its next periodic pass,
  // as a full overflow buffer does (DCPI §4.2.2); once per crossing. On the
  // daemon CPU itself the IPI is taken when the IPL drops below 5.
  constexpr uint64_t kWakeLevel = kValueBufferWords / 2;
  if (before - tail < kWakeLevel && head - tail >= kWakeLevel) signal_daemon(hot.cpu, true);
}

uint32_t value_pending_words(uint32_t cpu, bool* dropped_since) {
  const ValueBuffer& vb = g_values[cpu];
  *dropped_since = vb.stats.tuples_dropped != vb.dropped_taken;
  return static_cast<uint32_t>(__atomic_load_n(&vb.head, __ATOMIC_ACQUIRE) - vb.tail);
}

void value_take(uint32_t cpu, uint8_t* payload, uint32_t words, RecordChecksum& sum) {
  ValueBuffer& vb = g_values[cpu];
  const uint64_t dropped = vb.stats.tuples_dropped - vb.dropped_taken;
  vb.dropped_taken += dropped;
  move_into_record(payload, ValuesPayload{words, kValuesFormat, dropped}, vb.words,
                   kValueBufferWords, vb.tail, words, sum);
}

const ValueStats& value_stats(uint32_t cpu) { return g_values[cpu].stats; }

}  // namespace dcpi::driver
