// Value-sampling tuples (seed 001 §2.1.2, §2.3, §2.4): what the interrupt
// handler captures per interpreted instruction, carried to the host in
// kValues records of the transfer ring (RecordType::kValues). Shared by the
// guest writer and the host decoder; documented in docs/transfer-format.md.
//
// Seed 001 §2.4: "users may specify what should be captured by the
// interpreter for each instruction opcode. One option is to capture nothing
// for particular opcodes, but usually some basic information is collected,
// including the PC and the 32-bit instruction code. In addition, users may
// opt to record one or more of the following: content of an explicitly named
// register, the instruction's operand or result, a memory operand's virtual
// address, and the latency of loads." So a tuple is a 16-byte head plus one
// quadword per captured field, and the return-address context of §2.3 is
// captured once per run, not per tuple (Table 2(a): "vprof with context").
#pragma once
#include <cstddef>
#include <cstdint>

namespace dcpi {

// What to capture for one major opcode (ValueCapture::fields).
// One quadword each after the tuple head, in bit order. The configuration
// asks for both operands (kFieldOperands); the handler keeps only those the
// instruction reads (isa::fields_read: a load's Ra is its destination).
enum ValueField : uint8_t {
  kFieldTuple = 1u << 0,     // PC and instruction word; without it, nothing for this opcode
  kFieldA = 1u << 1,         // a: the Ra/Fa value read
  kFieldB = 1u << 2,         // b: the Rb/Fb value read, or the literal
  kFieldResult = 1u << 3,    // the value written, stored, or 1/0 for a taken/untaken branch
  kFieldAddress = 1u << 4,   // va: the effective address (memory instructions only)
  kFieldLatency = 1u << 5,   // RPCC cycles around the access (loads only)
  kFieldRegister = 1u << 6,  // the named register (ValueCapture::named_register) before it ran
  kFieldOperands = kFieldA | kFieldB,
  kFieldAll = 0x7f,
};

// Limits of values=N/k (kSetValues), shared by the driver, `dcpi run`'s
// option check and the payload decoder.
inline constexpr uint32_t kMaxValueLength = 64;  // N: instructions interpreted per run
inline constexpr uint32_t kMaxValueEvery = 255;  // k: CpuHot::value_countdown is a byte

// Quadwords the present fields add after the tuple head.
constexpr uint32_t field_words(uint8_t fields) {
  return static_cast<uint32_t>(__builtin_popcount(fields & kFieldAll & ~kFieldTuple));
}

// The interpreter's capture configuration (kernel command line vcapture=,
// parse_capture_spec below). Default: seed 001's basic vprof, operands and
// results of every instruction, no context.
struct ValueCapture {
  uint8_t fields[64];      // ValueField bits by major opcode (word >> 26)
  uint8_t context;         // 1: each run records ra and the quadword at sp (§2.3)
  uint8_t named_register;  // integer register for kFieldRegister (0-31)
};

constexpr ValueCapture default_value_capture() {
  ValueCapture capture{};
  for (uint8_t& f : capture.fields) f = kFieldTuple | kFieldOperands | kFieldResult;
  capture.named_register = 31;  // none named: r31 reads as zero
  return capture;
}

// ---- The kValues payload: ValuesPayload, then `words` quadwords of runs.
struct ValuesPayload {
  uint32_t words;    // quadwords of runs that follow
  uint32_t format;   // kValuesFormat
  uint64_t dropped;  // tuples lost on this CPU since the previous record (buffer full)
};
static_assert(sizeof(ValuesPayload) == 16);
inline constexpr uint32_t kValuesFormat = 2;

enum ValueRunFlags : uint8_t {
  kRunContext = 1u << 0,  // ra and stack_top follow the run header
};

// One interpretation run: this header, [ra, stack_top] if kRunContext, then
// `tuples` tuples. 8 bytes.
struct ValueRunHeader {
  uint16_t pid;
  uint8_t tuples;  // tuples that follow (instructions whose opcode captures nothing are absent)
  uint8_t flags;   // ValueRunFlags
  uint8_t length;  // instructions interpreted (>= tuples)
  uint8_t stop;    // why it ended (isa::interp::Stop; 0 = ran its full length)
  uint16_t reserved;
};
static_assert(sizeof(ValueRunHeader) == 8);

enum ValueTupleFlags : uint8_t {
  kTupleMemory = 1u << 0,    // the instruction accessed memory
  kTupleLoad = 1u << 1,      // the access was a load
  kTupleFirst = 1u << 3,     // decoded form: first tuple of its run
  kTupleFpA = 1u << 4,       // a is an FP register image (print as FP)
  kTupleFpB = 1u << 5,       // b is
  kTupleFpResult = 1u << 6,  // result is
};
inline constexpr uint32_t kTupleFpShift = 4;  // isa::interp::Step::fp_values << this

// One tuple: this head, then field_words(fields) quadwords, in ValueField
// bit order (a, b | result | va | latency | register). 16 bytes.
struct ValueTupleHead {
  uint64_t pc;
  uint32_t word;
  uint8_t flags;   // ValueTupleFlags
  uint8_t fields;  // ValueField bits present (kFieldTuple always)
  uint8_t index;   // position in its run, 0-based
  uint8_t reserved;
};
static_assert(sizeof(ValueTupleHead) == 16);

// The decoded form the host hands to customization modules (not a wire
// layout): absent fields are 0 and `fields` says which are present; the run's
// context is repeated in every tuple of the run.
struct ValueTuple {
  uint64_t pc;
  uint32_t word;
  uint16_t pid;
  uint8_t flags;   // ValueTupleFlags
  uint8_t index;   // position in its interpretation run
  uint8_t fields;  // ValueField bits captured
  bool has_context;
  uint64_t a;
  uint64_t b;
  uint64_t result;
  uint64_t va;
  uint64_t
      latency;     // under QEMU icount every load costs the same (seed 001 §3.3 needs real timing)
  uint64_t named;  // the named register's content
  uint64_t ra;     // context (seed 001 §2.3): the return-address register when the run began
  uint64_t stack_top;  // ... and the quadword at the user sp (0 if unreadable)
};

// Why interpretation runs ended early, counted per CPU (ValueStats).
struct ValueStats {
  uint64_t cpu;
  uint64_t runs;            // interpretation runs started
  uint64_t interpreted;     // instructions interpreted
  uint64_t skipped_kernel;  // interrupts in kernel mode (not interpreted)
  uint64_t stops[8];        // by isa::interp::Stop
  uint64_t tuples_dropped;  // tuple buffer full (whole runs are dropped)
  uint64_t tuples;          // tuples captured
  uint64_t reserved[2];
};
static_assert(sizeof(ValueStats) == 128);

// ---- vcapture= spec: comma-separated tokens, e.g. "tor", "tora,ctx",
// "t,20=tora,reg=16". The first token (letters, or '-' for nothing) applies
// to every opcode; "XX=letters" (XX: two hex digits) to one major opcode;
// "ctx" turns on the run context; "reg=N" names the register for 'n'.
// Without a leading fields token every opcode keeps the default ("tor").
// Letters: t tuple (PC and word), o operands, r result, a address,
// l latency, n named register. Fields other than t imply t.
namespace capture_spec {
constexpr int letter_field(char c) {
  switch (c) {
    case 't':
      return kFieldTuple;
    case 'o':
      return kFieldOperands;
    case 'r':
      return kFieldResult;
    case 'a':
      return kFieldAddress;
    case 'l':
      return kFieldLatency;
    case 'n':
      return kFieldRegister;
    default:
      return -1;
  }
}
constexpr int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr bool parse_fields(const char* s, size_t n, uint8_t& out) {
  out = 0;
  if (n == 1 && s[0] == '-') return true;
  if (n == 0) return false;
  for (size_t i = 0; i < n; ++i) {
    const int f = letter_field(s[i]);
    if (f < 0) return false;
    out = static_cast<uint8_t>(out | f);
  }
  out = static_cast<uint8_t>(out | kFieldTuple);
  return true;
}
constexpr bool parse_token(const char* s, size_t n, bool first, ValueCapture& out) {
  if (n == 3 && s[0] == 'c' && s[1] == 't' && s[2] == 'x') {
    out.context = 1;
    return true;
  }
  if (n > 4 && s[0] == 'r' && s[1] == 'e' && s[2] == 'g' && s[3] == '=') {
    unsigned reg = 0;
    for (size_t i = 4; i < n; ++i) {
      if (s[i] < '0' || s[i] > '9' || i > 5) return false;
      reg = reg * 10 + static_cast<unsigned>(s[i] - '0');
    }
    if (reg > 31) return false;
    out.named_register = static_cast<uint8_t>(reg);
    return true;
  }
  if (n >= 3 && s[2] == '=') {
    const int hi = hex_digit(s[0]), lo = hex_digit(s[1]);
    if (hi < 0 || lo < 0 || hi * 16 + lo > 63) return false;
    return parse_fields(s + 3, n - 3, out.fields[hi * 16 + lo]);
  }
  if (!first) return false;  // a fields token for every opcode comes first
  uint8_t fields = 0;
  if (!parse_fields(s, n, fields)) return false;
  for (uint8_t& f : out.fields) f = fields;
  return true;
}
}  // namespace capture_spec

// Parses a vcapture= spec (not NUL-terminated: `n` bytes); false, with `out`
// unspecified, if it is malformed.
constexpr bool parse_capture_spec(const char* s, size_t n, ValueCapture& out) {
  out = default_value_capture();  // "ctx" alone: the default fields plus context
  if (n == 0) return false;
  size_t start = 0;
  for (size_t i = 0; i <= n; ++i) {
    if (i < n && s[i] != ',') continue;
    if (!capture_spec::parse_token(s + start, i - start, start == 0, out)) return false;
    start = i + 1;
  }
  return true;
}

}  // namespace dcpi
