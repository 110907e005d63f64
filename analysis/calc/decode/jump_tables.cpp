#include "analysis/calc/decode/jump_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <type_traits>

#include "analysis/calc/decode/isa_adapter.h"
#include "isa/isa.h"

namespace dcpi::calc {

void ImageData::add(uint64_t address, std::vector<uint8_t> bytes) {
  if (!bytes.empty()) segments_.push_back({address, std::move(bytes)});
}

std::optional<uint64_t> ImageData::read(uint64_t address, unsigned bytes) const {
  if (bytes == 0 || bytes > 8) return std::nullopt;
  for (const Segment& s : segments_) {
    if (address < s.address || address - s.address > s.bytes.size() ||
        s.bytes.size() - (address - s.address) < bytes)
      continue;
    uint64_t value = 0;
    for (unsigned k = 0; k < bytes; ++k)
      value |= uint64_t{s.bytes[address - s.address + k]} << (8 * k);
    return value;
  }
  return std::nullopt;
}

namespace {

using isa::Operation;

constexpr uint8_t kNone = 32;  // "no register" in a relation
constexpr uint8_t kPv = 27;    // procedure value: the procedure's address on entry
constexpr uint8_t kGp = 29;
constexpr uint8_t kZero = 31;
// Largest table we read: the bound comes from the code, this only stops a
// loose bound (a 16-bit index) from reading megabytes.
constexpr uint64_t kMaxEntries = 1u << 16;
constexpr int kMaxRounds = 16;

// What is known about one integer register at one point of the procedure: a
// small lattice for constant propagation (gp, table addresses) and index
// bounds. Meets go towards kUnknown; arithmetic on anything but constants
// gives kUnknown, so the iteration terminates.
struct Fact {
  enum class Kind : uint8_t {
    kUnknown,
    kConstant,  // value
    kBounded,   // 0 <= register <= max (unsigned)
    kSlot,      // table + scale * index, index <= max: the address of a table element
    kEntry,     // the sign-extended 32-bit entry loaded from such a slot
    kTarget,    // base + entry: where the jmp goes
    // ldq_u of a kSlot of scale 1: the quadwords holding table[0..max] (a
    // byte table read without BWX, as glibc's Alpha build does), whose
    // extbl is then bounded by the table's largest byte.
    kBytes,
    // One of several jump targets: different paths bring different tables
    // (or a constant address) to one shared jmp, as GCC's cross-jumping
    // merges the ends of glibc vfprintf's dispatches. value: the set's id in
    // the procedure's TargetSets.
    kTargetSet,
  };
  // The one-byte fields first, then the words: 48 bytes without padding
  // (issue 31: 56 with it; every visit copies and compares 32 of them).
  Kind kind = Kind::kUnknown;
  uint8_t scale = 0;  // kSlot: bytes per element (addq: 1, s4addq: 4)
  // Relations, valid until either register is written again:
  // this register's low 32 bits equal those of `ext32_of` and both are
  // canonical (zapnot x,0xf / sextl of it; see compare()).
  uint8_t ext32_of = kNone;
  // A compare result: (this != 0) == in_range_if_nonzero exactly when
  // `subject` <= limit (unsigned); `wide_subject` is the register whose
  // 32-bit extension `subject` was, bounded too (see compare()).
  uint8_t subject = kNone;
  uint8_t wide_subject = kNone;
  bool in_range_if_nonzero = true;
  uint8_t unused[2] = {};  // no padding: equal facts are equal bytes (same())
  uint64_t value = 0;      // kConstant: the value; kSlot, kEntry, kTarget: the table's address
  uint64_t max = 0;        // kBounded: the bound; kSlot, kEntry, kTarget: the largest index
  uint64_t base = 0;       // kTarget
  uint64_t limit = 0;      // the compare's (see subject)
  // kUnknown only: the address of a call that changed (or may have changed)
  // a value known before it, for the "not read" reason; 0 if none.
  uint64_t lost_at = 0;

  bool same_test(const Fact& o) const {
    return subject == o.subject && wide_subject == o.wide_subject &&
           in_range_if_nonzero == o.in_range_if_nonzero && limit == o.limit;
  }
  void copy_test(const Fact& o) {
    subject = o.subject;
    wide_subject = o.wide_subject;
    in_range_if_nonzero = o.in_range_if_nonzero;
    limit = o.limit;
  }

  bool operator==(const Fact&) const = default;
  // operator== as one memcmp: the meets compare 32 facts per edge.
  bool same(const Fact& o) const { return std::memcmp(this, &o, sizeof(Fact)) == 0; }
  bool numeric() const { return kind == Kind::kConstant || kind == Kind::kBounded; }
  uint64_t upper() const { return kind == Kind::kConstant ? value : max; }
};

static_assert(std::has_unique_object_representations_v<Fact>, "Fact::same needs no padding");
static_assert(sizeof(Fact) == 48);

Fact constant(uint64_t v) { return Fact{.kind = Fact::Kind::kConstant, .value = v}; }
Fact bounded(uint64_t max) { return Fact{.kind = Fact::Kind::kBounded, .max = max}; }
Fact unknown() { return Fact{}; }

// The earliest call that lost a value on either path (0: none).
uint64_t lost_at(const Fact& a, const Fact& b) {
  const uint64_t x = a.kind == Fact::Kind::kUnknown ? a.lost_at : 0;
  const uint64_t y = b.kind == Fact::Kind::kUnknown ? b.lost_at : 0;
  return x && y ? std::min(x, y) : x | y;
}

// Where a jmp may go: one table read (table, largest index, base), or a
// constant address (table 0, base the address).
struct TargetSource {
  uint64_t table = 0, max = 0, base = 0;
  uint8_t entry_bytes = 4;  // 4: base + sign-extended offsets; 8: absolute addresses
  auto operator<=>(const TargetSource&) const = default;
};

// The sets of target sources kTargetSet facts name, interned so that equal
// sets are equal ids (Fact::same compares bytes). One per resolve_jump_tables
// call (its thread's: procedures are analysed on several threads).
class TargetSets {
 public:
  static constexpr size_t kMaxSources = 64;
  std::optional<uint64_t> intern(std::vector<TargetSource> sources) {
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    if (sources.size() > kMaxSources) return std::nullopt;
    const auto [at, added] = ids_.try_emplace(sources, sets_.size());
    if (added) sets_.push_back(std::move(sources));
    return at->second;
  }
  const std::vector<TargetSource>& operator[](uint64_t id) const { return sets_[id]; }

 private:
  std::map<std::vector<TargetSource>, uint64_t> ids_;
  std::vector<std::vector<TargetSource>> sets_;
};
thread_local TargetSets* target_sets = nullptr;

// The sources of a fact that says where a jmp goes (none for the others).
std::vector<TargetSource> target_sources(const Fact& f) {
  if (f.kind == Fact::Kind::kTarget)
    return {{f.value, f.max, f.base, static_cast<uint8_t>(f.scale == 8 ? 8 : 4)}};
  if (f.kind == Fact::Kind::kConstant) return {{0, 0, f.value}};
  if (f.kind == Fact::Kind::kTargetSet && target_sets) return (*target_sets)[f.value];
  return {};
}

// Two paths bring two different targets (at least one from a table).
std::optional<Fact> meet_targets(const Fact& a, const Fact& b) {
  using K = Fact::Kind;
  const auto jumpy = [](const Fact& f) { return f.kind == K::kTarget || f.kind == K::kTargetSet; };
  if (!target_sets || !(jumpy(a) || jumpy(b))) return std::nullopt;
  std::vector<TargetSource> both = target_sources(a);
  const std::vector<TargetSource> more = target_sources(b);
  if (both.empty() || more.empty()) return std::nullopt;
  both.insert(both.end(), more.begin(), more.end());
  const std::optional<uint64_t> id = target_sets->intern(std::move(both));
  if (!id) return std::nullopt;
  return Fact{.kind = K::kTargetSet, .value = *id};
}

Fact meet(const Fact& a, const Fact& b) {
  if (a == b) return a;
  if (const std::optional<Fact> targets = meet_targets(a, b)) return *targets;
  Fact r;
  if (a.numeric() && b.numeric()) r = bounded(std::max(a.upper(), b.upper()));
  if (r.kind == Fact::Kind::kUnknown) r.lost_at = lost_at(a, b);
  if (a.ext32_of == b.ext32_of) r.ext32_of = a.ext32_of;
  if (a.same_test(b)) r.copy_test(a);
  return r;
}

struct State {
  bool reached = false;
  std::array<Fact, 32> regs{};
  // Registers some relation may mention (a superset: bit r clear means no
  // fact's ext32_of, subject or wide_subject is r). Writing a register
  // outside it skips the scan of every fact (issue 31: that scan was most of
  // the dataflow's time). Meets only drop relations, so it stays a superset.
  RegisterMask related = 0;

  State() { regs[kZero] = constant(0); }
  const Fact& operator[](uint8_t r) const { return regs[r]; }

  // Writing a register ends every relation that mentions it.
  void write(uint8_t r, Fact f) {
    if (r == kZero) return;
    if (related & bit(r)) {
      for (Fact& other : regs) {
        if (other.ext32_of == r) other.ext32_of = kNone;
        if (other.subject == r) other.subject = kNone;
        if (other.wide_subject == r) other.wide_subject = kNone;
      }
      related &= ~bit(r);
    }
    if (f.ext32_of == r) f.ext32_of = kNone;
    if (f.subject == r) f.subject = kNone;
    if (f.wide_subject == r) f.wide_subject = kNone;
    for (const uint8_t mentioned : {f.ext32_of, f.subject, f.wide_subject})
      if (mentioned != kNone) related |= bit(mentioned);
    regs[r] = f;
  }

  // Returns whether `into` changed.
  bool meet_into(State& into) const {
    if (!reached) return false;
    if (!into.reached) {
      into = *this;
      return true;
    }
    // Equal states (most meets at the fixed point) in one comparison.
    if (std::memcmp(regs.data(), into.regs.data(), sizeof(regs)) == 0) return false;
    bool changed = false;
    for (size_t r = 0; r < regs.size(); ++r) {
      if (regs[r].same(into.regs[r])) continue;  // the meet of equal facts is the fact
      const Fact m = meet(into.regs[r], regs[r]);
      if (!m.same(into.regs[r])) into.regs[r] = m, changed = true;
    }
    return changed;
  }

 private:
  static constexpr RegisterMask bit(uint8_t r) { return RegisterMask{1} << r; }
};

uint64_t sext32(uint64_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
}

uint64_t zapnot(uint64_t v, uint8_t mask) {
  uint64_t r = 0;
  for (int byte = 0; byte < 8; ++byte)
    if (mask & (1u << byte)) r |= v & (uint64_t{0xff} << (8 * byte));
  return r;
}

// cmpule/cmpult Rt <- Ra, Rb|#lit with one side constant: the result bounds
// the other side on one of the branch's edges.
Fact compare(const isa::Instruction& in, const State& s) {
  const bool le = in.is(Operation::kCmpule);
  const Fact a = s[in.ra];
  const Fact b = in.has_literal ? constant(in.literal) : s[in.rb];
  if (a.kind == Fact::Kind::kConstant && b.kind == Fact::Kind::kConstant)
    return constant(le ? a.value <= b.value : a.value < b.value);
  Fact r = bounded(1);
  uint8_t subject = kNone;
  uint64_t limit = 0;
  if (b.kind == Fact::Kind::kConstant) {  // a <= K, a < K: nonzero when in range
    if (!le && b.value == 0) return constant(0);
    subject = in.ra;
    limit = le ? b.value : b.value - 1;
    r.in_range_if_nonzero = true;
  } else if (a.kind == Fact::Kind::kConstant && !in.has_literal) {  // K < b, K <= b: zero when
    if (le && a.value == 0) return constant(1);                     // b <= K (b <= K - 1)
    subject = in.rb;
    limit = le ? a.value - 1 : a.value;
    r.in_range_if_nonzero = false;
  } else {
    return r;
  }
  // GCC compares the zero-extended copy of an int index (zapnot x,0xf) and
  // indexes with the register itself: under the calling standard 32-bit
  // values live sign-extended in registers, so within [0, 2^31) both agree.
  r.subject = subject;
  if (const uint8_t wide = s[subject].ext32_of; wide != kNone && limit < 0x80000000u)
    r.wide_subject = wide;
  r.limit = limit;
  return r;
}

// The image's constant data as the dataflow reads it. The largest byte of a
// byte table is looked up once per procedure: reading the table again on
// every visit of its block was most of the dataflow's time in libz.
class DataReader {
 public:
  explicit DataReader(const ImageData& data) : data_(data) {}
  std::optional<uint64_t> read(uint64_t address, unsigned bytes) const {
    return data_.read(address, bytes);
  }
  // The largest of the `count` bytes at `address`; nothing if one is not
  // in the image's constant data.
  std::optional<uint64_t> largest_byte(uint64_t address, uint64_t count) const {
    const auto [at, added] = largest_byte_.try_emplace({address, count});
    if (!added) return at->second;
    uint64_t largest = 0;
    for (uint64_t k = 0; k < count; ++k) {
      const auto byte = data_.read(address + k, 1);
      if (!byte) return at->second = std::nullopt;
      largest = std::max(largest, *byte);
    }
    return at->second = largest;
  }

 private:
  const ImageData& data_;
  mutable std::map<std::pair<uint64_t, uint64_t>, std::optional<uint64_t>> largest_byte_;
};

// The value an instruction writes to its integer destination.
Fact evaluate(const isa::Instruction& in, const State& s, const DataReader& data) {
  using K = Fact::Kind;
  const Fact b = in.has_literal ? constant(in.literal) : s[in.rb];
  const Fact& a = s[in.ra];
  const uint64_t disp = static_cast<uint64_t>(static_cast<int64_t>(in.displacement));
  switch (in.operation) {
    case Operation::kLda:  // lda Ra, disp(Rb)
      return s[in.rb].kind == K::kConstant ? constant(s[in.rb].value + disp) : unknown();
    case Operation::kLdah:
      return s[in.rb].kind == K::kConstant ? constant(s[in.rb].value + (disp << 16)) : unknown();
    case Operation::kLdq:  // a GOT entry: the address of a table (!literal)
      if (s[in.rb].kind == K::kConstant)
        if (const auto v = data.read(s[in.rb].value + disp, 8)) return constant(*v);
      // An entry of a table of absolute addresses (GCC's computed gotos
      // through `static void* table[] = {&&label, ...}`: Lua's dispatch).
      if (s[in.rb].kind == K::kSlot && s[in.rb].scale == 8)
        return Fact{
            .kind = K::kTarget, .scale = 8, .value = s[in.rb].value + disp, .max = s[in.rb].max};
      return unknown();
    case Operation::kLdl:  // the table entry
      if (s[in.rb].kind == K::kSlot && s[in.rb].scale == 4)
        return Fact{.kind = K::kEntry, .value = s[in.rb].value + disp, .max = s[in.rb].max};
      return unknown();
    case Operation::kLdbu:  // a byte table with constant contents bounds what it yields
      if (s[in.rb].kind == K::kSlot && s[in.rb].scale == 1 && s[in.rb].max < kMaxEntries)
        return bounded(data.largest_byte(s[in.rb].value + disp, s[in.rb].max + 1).value_or(0xff));
      return bounded(0xff);
    case Operation::kLdwu:
      return bounded(0xffff);
    case Operation::kLdqU:  // ldq_u x, d(slot): the quadword holding a byte of the table
      if (s[in.rb].kind == K::kSlot && s[in.rb].scale == 1 && s[in.rb].max < kMaxEntries)
        return Fact{.kind = K::kBytes, .value = s[in.rb].value + disp, .max = s[in.rb].max};
      return unknown();
    case Operation::kExtbl: {  // extbl x, address: one byte of the quadword
      if (a.kind != K::kBytes) return bounded(0xff);
      // Any byte of the aligned quadwords table[0..max] touches.
      const uint64_t first = a.value & ~uint64_t{7};
      const uint64_t end = (a.value + a.max + 1 + 7) & ~uint64_t{7};
      return bounded(data.largest_byte(first, end - first).value_or(0xff));
    }
    case Operation::kS8addq:  // s8addq index, table: a table of quadwords
      if (b.kind == K::kConstant && a.numeric() && a.upper() < kMaxEntries)
        return Fact{.kind = K::kSlot, .scale = 8, .value = b.value, .max = a.upper()};
      if (b.kind == K::kConstant && a.kind == K::kConstant) return constant(8 * a.value + b.value);
      return unknown();
    case Operation::kS4addq:  // s4addq index, table
      // A constant index (an interpreter's first opcode, before the loop
      // brings others) is taken as bounded by itself: entries 0..c are read,
      // a superset of the one taken, and the next round sees the real bound.
      if (b.kind == K::kConstant && a.numeric() && a.upper() < kMaxEntries)
        return Fact{.kind = K::kSlot, .scale = 4, .value = b.value, .max = a.upper()};
      if (b.kind == K::kConstant && a.kind == K::kConstant) return constant(4 * a.value + b.value);
      return unknown();
    case Operation::kAddq:  // addq gp, entry; addq table, index (either order)
      if (a.kind == K::kConstant && b.kind == K::kConstant) return constant(a.value + b.value);
      if (a.kind == K::kConstant && b.kind == K::kBounded)
        return Fact{.kind = K::kSlot, .scale = 1, .value = a.value, .max = b.max};
      if (b.kind == K::kConstant && a.kind == K::kBounded)
        return Fact{.kind = K::kSlot, .scale = 1, .value = b.value, .max = a.max};
      if (a.kind == K::kEntry && b.kind == K::kConstant)
        return Fact{.kind = K::kTarget, .value = a.value, .max = a.max, .base = b.value};
      if (b.kind == K::kEntry && a.kind == K::kConstant)
        return Fact{.kind = K::kTarget, .value = b.value, .max = b.max, .base = a.value};
      return unknown();
    case Operation::kAddl: {  // sextl = addl zero, x
      if (a.kind == K::kConstant && b.kind == K::kConstant)
        return constant(sext32(a.value + b.value));
      Fact r = unknown();
      if (in.ra == kZero && !in.has_literal) r.ext32_of = in.rb;
      return r;
    }
    case Operation::kBis:  // mov = or zero, x
      if (in.ra == kZero) return b;
      if (!in.has_literal && in.rb == kZero) return a;
      if (a.kind == K::kConstant && b.kind == K::kConstant) return constant(a.value | b.value);
      return unknown();
    case Operation::kAnd:
      if (a.kind == K::kConstant && b.kind == K::kConstant) return constant(a.value & b.value);
      if (a.numeric() || b.numeric())
        return bounded(std::min(a.numeric() ? a.upper() : ~uint64_t{0},
                                b.numeric() ? b.upper() : ~uint64_t{0}));
      return unknown();
    case Operation::kZapnot: {
      if (!in.has_literal) return unknown();
      if (a.kind == K::kConstant) return constant(zapnot(a.value, in.literal));
      Fact r = unknown();
      if ((in.literal & (in.literal + 1)) == 0)  // low bytes only: 0x1, 0x3, ..., 0x7f
        r = bounded(zapnot(~uint64_t{0}, in.literal));
      if (in.literal == 0xf) r.ext32_of = in.ra;
      return r;
    }
    case Operation::kSrl:
      if (!in.has_literal) return unknown();
      if (a.kind == K::kConstant) return constant(a.value >> (in.literal & 63));
      return bounded((a.kind == K::kBounded ? a.max : ~uint64_t{0}) >> (in.literal & 63));
    case Operation::kCmpule:
    case Operation::kCmpult:
      return compare(in, s);
    default:
      return unknown();
  }
}

// The callee of a call: bsr's target, or for jsr the procedure value its
// register holds (GCC loads it from the GOT: `ldq t12, f(gp) !literal`).
std::optional<uint64_t> callee_of(const InstructionRecord& r, const State& s) {
  if (r.branch_target) return r.branch_target;
  const uint8_t target = r.source_b ? r.source_b->reg.number : kZero;
  if (s[target].kind == Fact::Kind::kConstant) return s[target].value;
  return std::nullopt;
}

// `in` is r's word decoded in user mode (once per procedure: decoding it
// on every visit was a fifth of the dataflow's time).
void transfer(State& s, const InstructionRecord& r, const isa::Instruction& in,
              const DataReader& data, const CallClobbers& calls) {
  if (r.control_flow == ControlFlow::kCall || r.ev5_class == isa::Ev5Class::kCallPal) {
    // The callee (or PALcode) may change what call_clobbers.h says: every
    // caller-saved register for an unknown callee or PALcode, fewer for a
    // known one (the division helpers change only t9, t12 and AT). gp
    // survives a bsr: GCC emits `bsr !samegp`, and the linker turns `jsr`
    // into `bsr callee+8` (deleting the gp reload after it), only for a
    // callee that shares the caller's gp. After the call, its Ra holds the
    // return address (GCC's `ldah gp,hi(ra)` reload relies on it).
    const bool call = r.control_flow == ControlFlow::kCall;
    RegisterMask lost = call
                            ? calls.of_call(r, callee_of(r, s))
                            : pal_call_clobbers(in.pal_function).value_or(caller_saved_registers());
    if (call && r.branch_target) lost &= ~(RegisterMask{1} << kGp);
    for (uint8_t reg = 0; reg < kZero; ++reg) {
      if (!(lost & (RegisterMask{1} << reg))) continue;
      Fact gone = unknown();
      gone.lost_at = s[reg].kind == Fact::Kind::kUnknown ? s[reg].lost_at : r.address;
      s.write(reg, gone);
    }
    if (call && r.destination && !r.destination->floating)
      s.write(r.destination->number, constant(r.address + 4));
    return;
  }
  if (!r.destination || r.destination->floating) return;
  // The record knows the destination in every mode; the operations
  // evaluate() models decode alike in both (PALcode's hw_* are invalid in
  // user mode, hence unknown).
  s.write(r.destination->number, in.valid() ? evaluate(in, s, data) : unknown());
}

// Whether a block ending in `last` (decoded: `in`) ends in a beq/bne, whose
// edges refine_along may refine.
bool zero_test(const InstructionRecord& last, const isa::Instruction& in) {
  return last.control_flow == ControlFlow::kConditionalBranch &&
         (in.is(Operation::kBeq) || in.is(Operation::kBne));
}

// Whether refine_along(s, last, in, taken) may change s or rule the edge
// out: where it does neither, the state flows along the edge as it is (no
// copy).
bool may_refine(const State& s, const InstructionRecord& last, const isa::Instruction& in,
                bool taken) {
  if (!zero_test(last, in)) return false;
  const bool nonzero = in.is(Operation::kBeq) ? !taken : taken;
  const Fact& t = s[in.ra];
  if (t.kind == Fact::Kind::kConstant) return true;
  return t.in_range_if_nonzero == nonzero && (t.subject != kNone || t.wide_subject != kNone);
}

// The state along one edge out of a block ending in `last` (decoded: `in`):
// beq/bne on a compare result bounds its subject; on a constant they may
// never be taken (or never fall through). Returns false for an edge that
// cannot be taken.
bool refine_along(State& s, const InstructionRecord& last, const isa::Instruction& in, bool taken) {
  if (!zero_test(last, in)) return true;
  const bool nonzero = in.is(Operation::kBeq) ? !taken : taken;
  const Fact t = s[in.ra];
  if (t.kind == Fact::Kind::kConstant) return (t.value != 0) == nonzero;
  if (t.in_range_if_nonzero != nonzero) return true;
  for (const uint8_t r : {t.subject, t.wide_subject}) {
    if (r == kNone) continue;
    Fact& subject = s.regs[r];
    if (subject.kind == Fact::Kind::kConstant) {
      if (subject.value > t.limit) return false;
    } else if (subject.kind == Fact::Kind::kBounded) {
      subject.max = std::min(subject.max, t.limit);
    } else if (subject.kind == Fact::Kind::kUnknown) {
      subject.kind = Fact::Kind::kBounded;  // relations stay: the value did not change
      subject.max = t.limit;
    }
  }
  return true;
}

// One procedure: its blocks under the current set of jump table edges.
class Dataflow {
 public:
  // `words`: each record's word decoded in user mode. `states`: storage for
  // the states at block entries, kept across rounds (a procedure of
  // thousands of blocks has megabytes of them: fresh pages every round).
  Dataflow(const std::vector<InstructionRecord>& code, std::span<const isa::Instruction> words,
           std::span<const uint64_t> extra_entries,
           const std::map<size_t, std::vector<uint64_t>>& table_edges, const DataReader& data,
           const CallClobbers& calls, std::vector<State>& states)
      : code_(code), words_(words), data_(data), calls_(calls), in_(states) {
    const uint64_t first = code.front().address;
    const uint64_t end = code.back().address + 4;
    auto index_of = [&](uint64_t a) -> std::optional<size_t> {
      if (a < first || a >= end || (a - first) % 4) return std::nullopt;
      return (a - first) / 4;
    };
    // Per-instruction flags, not a std::set of indices (issue 31).
    std::vector<bool> leader(code.size(), false);
    leader[0] = true;
    for (uint64_t e : extra_entries)
      if (const auto i = index_of(e)) leader[*i] = true, extra_.push_back(*i);
    for (size_t i = 0; i < code.size(); ++i) {
      const InstructionRecord& r = code[i];
      if (r.control_flow != ControlFlow::kNone && i + 1 < code.size()) leader[i + 1] = true;
      if (r.branch_target && r.control_flow != ControlFlow::kCall)
        if (const auto t = index_of(*r.branch_target)) leader[*t] = true;
    }
    for (const auto& [jump, targets] : table_edges)
      for (uint64_t t : targets)
        if (const auto i = index_of(t)) leader[*i] = true;
    for (size_t i = 0; i < code.size(); ++i)
      if (leader[i]) starts_.push_back(i);
    block_of_.assign(code.size(), 0);
    for (size_t b = 0; b < starts_.size(); ++b) {
      const size_t stop = b + 1 < starts_.size() ? starts_[b + 1] : code.size();
      for (size_t i = starts_[b]; i < stop; ++i) block_of_[i] = b;
    }
    successors_first_.reserve(starts_.size() + 1);
    successors_first_.push_back(0);
    for (size_t b = 0; b < starts_.size(); ++b) {
      const size_t last = last_of(b);
      const InstructionRecord& r = code[last];
      const bool falls = r.control_flow == ControlFlow::kNone ||
                         r.control_flow == ControlFlow::kConditionalBranch ||
                         r.control_flow == ControlFlow::kCall;
      if ((r.control_flow == ControlFlow::kConditionalBranch ||
           r.control_flow == ControlFlow::kUnconditionalBranch) &&
          r.branch_target)
        if (const auto t = index_of(*r.branch_target)) successors_.push_back({block_of_[*t], true});
      if (falls && last + 1 < code.size()) successors_.push_back({b + 1, false});
      if (const auto found = table_edges.find(last); found != table_edges.end())
        for (uint64_t t : found->second)
          if (const auto i = index_of(t)) successors_.push_back({block_of_[*i], true});
      successors_first_.push_back(successors_.size());
    }
    find_blocks_reaching_jumps();
  }

  // Runs to the fixed point. Returns false if it did not settle (it does:
  // facts only move down the lattice; the bound on visits is only a guard).
  bool run() {
    in_.assign(starts_.size(), State{});
    State entry;
    entry.reached = true;
    entry.regs[kPv] = constant(code_.front().address);  // calling standard: pv = procedure
    in_[0] = entry;
    // Callers that enter after the ldgp prologue (bsr to procedure + 8) share
    // the procedure's gp: the linker makes that call only when the GOTs agree.
    const std::optional<uint64_t> gp = prologue_gp(entry);
    for (size_t i : extra_) {
      State s;
      s.reached = true;
      if (gp && i == 2) s.regs[kGp] = constant(*gp);  // procedure + 8
      s.meet_into(in_[block_of_[i]]);
    }
    std::deque<size_t> work;
    std::vector<bool> queued(starts_.size(), false);
    for (size_t b = 0; b < starts_.size(); ++b)
      if (in_[b].reached && reaches_jump_[b]) work.push_back(b), queued[b] = true;
    size_t visits = 0;
    while (!work.empty()) {
      if (++visits > 256 * starts_.size() + 64) return false;
      const size_t b = work.front();
      work.pop_front();
      queued[b] = false;
      State s = in_[b];
      for (size_t i = starts_[b]; i <= last_of(b); ++i) step(s, i);
      const InstructionRecord& last = code_[last_of(b)];
      const isa::Instruction& last_word = words_[last_of(b)];
      for (const auto& [to, taken] : successors_of(b)) {
        if (!reaches_jump_[to]) continue;
        bool changed = false;
        if (may_refine(s, last, last_word, taken)) {
          State along = s;
          if (!refine_along(along, last, last_word, taken)) continue;
          changed = along.meet_into(in_[to]);
        } else {
          changed = s.meet_into(in_[to]);
        }
        if (changed && !queued[to]) work.push_back(to), queued[to] = true;
      }
    }
    return true;
  }

  // The state just before instruction i (reached = false if never reached),
  // for an instruction in a block from which an indirect jump can be
  // reached: only those blocks are analysed.
  State before(size_t i) const {
    const size_t b = block_of_[i];
    State s = in_[b];
    if (!s.reached) return s;
    for (size_t k = starts_[b]; k < i; ++k) step(s, k);
    return s;
  }

 private:
  std::span<const std::pair<size_t, bool>> successors_of(size_t b) const {
    return std::span(successors_)
        .subspan(successors_first_[b], successors_first_[b + 1] - successors_first_[b]);
  }
  void step(State& s, size_t i) const { transfer(s, code_[i], words_[i], data_, calls_); }
  size_t last_of(size_t b) const {
    return (b + 1 < starts_.size() ? starts_[b + 1] : code_.size()) - 1;
  }
  // The blocks from which some block ending in an indirect jump can be
  // reached. Only their states can reach a jump, and a block from which no
  // jump is reachable has no successor from which one is: the dataflow
  // skips the others without changing the order in which it visits these
  // (issue 31: a third of its visits in libsqlite3's switch procedures were
  // in code after the last switch).
  void find_blocks_reaching_jumps() {
    const size_t n = starts_.size();
    std::vector<size_t> first(n + 1, 0), predecessors(successors_.size());
    for (const auto& [to, taken] : successors_) ++first[to + 1];
    for (size_t b = 0; b < n; ++b) first[b + 1] += first[b];
    std::vector<size_t> next(first.begin(), first.end() - 1);
    for (size_t b = 0; b < n; ++b)
      for (const auto& [to, taken] : successors_of(b)) predecessors[next[to]++] = b;
    reaches_jump_.assign(starts_.size(), false);
    std::vector<size_t> stack;
    for (size_t b = 0; b < starts_.size(); ++b)
      if (code_[last_of(b)].control_flow == ControlFlow::kIndirectJump)
        reaches_jump_[b] = true, stack.push_back(b);
    while (!stack.empty()) {
      const size_t b = stack.back();
      stack.pop_back();
      for (size_t k = first[b]; k < first[b + 1]; ++k)
        if (const size_t p = predecessors[k]; !reaches_jump_[p])
          reaches_jump_[p] = true, stack.push_back(p);
    }
  }

  std::optional<uint64_t> prologue_gp(State s) const {
    if (code_.size() < 2) return std::nullopt;
    for (size_t i = 0; i < 2; ++i) step(s, i);
    if (s[kGp].kind != Fact::Kind::kConstant) return std::nullopt;
    return s[kGp].value;
  }

  const std::vector<InstructionRecord>& code_;
  std::span<const isa::Instruction> words_;
  const DataReader& data_;
  const CallClobbers& calls_;
  std::vector<size_t> starts_;    // first instruction of each block
  std::vector<size_t> block_of_;  // instruction -> block
  // Every block's successors (block, taken edge), block after block (one
  // array: a vector per block was most of building a round's dataflow).
  std::vector<std::pair<size_t, bool>> successors_;
  std::vector<size_t> successors_first_;  // per block, and one past the last
  std::vector<size_t> extra_;
  std::vector<bool> reaches_jump_;  // per block: find_blocks_reaching_jumps'
  std::vector<State>& in_;
};

std::string reg_name(uint8_t r) { return isa::kIntegerRegisterNames[r & 31]; }

// Why register `reg` holds no useful fact just before instruction `at`: the
// call that changed it, or the instruction (in the same straight-line code)
// that computed it from something unknown. `role` names what the register
// should have held. Follows the table pattern (addq gp,entry; ldl entry,slot;
// s4addq index,base) back to the first missing piece.
std::string explain(const std::vector<InstructionRecord>& code, const Dataflow& flow, size_t at,
                    uint8_t reg, const std::string& role, int depth = 0) {
  size_t k = at;
  while (k-- > 0 && code[k].control_flow == ControlFlow::kNone &&
         code[k].destination != int_register(reg)) {
  }
  const State before_use = flow.before(at);
  const Fact& f = before_use[reg];
  const bool defined_here = k < at && code[k].control_flow == ControlFlow::kNone &&
                            code[k].destination == int_register(reg);
  if (f.kind == Fact::Kind::kUnknown && f.lost_at) {  // a call lost it on some path
    std::string text =
        role + " (" + reg_name(reg) + ") is unknown: the call at " + fmt::format("{:x}", f.lost_at);
    for (const InstructionRecord& r : code)
      if (r.address == f.lost_at) text += " (" + disassemble(r) + ")";
    return text + " may change it";
  }
  if (!defined_here || depth > 4) return role + " (" + reg_name(reg) + ") is unknown";
  const isa::Instruction in = isa::decode(code[k].encoding, isa::DecodeMode::kUser);
  const State s = flow.before(k);
  using K = Fact::Kind;
  const std::string where =
      " (" + disassemble(code[k]) + " at " + fmt::format("{:x}", code[k].address) + ")";
  if (in.is(Operation::kAddq) && !in.has_literal) {
    const bool a_entry = s[in.ra].kind == K::kEntry, b_entry = s[in.rb].kind == K::kEntry;
    if (a_entry || b_entry)
      return explain(code, flow, k, a_entry ? in.rb : in.ra, "the gp added to the entry",
                     depth + 1);
    const uint8_t entry = in.ra == kGp ? in.rb : in.ra;
    return explain(code, flow, k, entry, "the table entry", depth + 1);
  }
  if (in.is(Operation::kLdl)) return explain(code, flow, k, in.rb, "the table slot", depth + 1);
  if (in.is(Operation::kS4addq) && !in.has_literal) {
    if (s[in.rb].kind != K::kConstant)
      return explain(code, flow, k, in.rb, "the table address", depth + 1);
    return "the index (" + reg_name(in.ra) + ") has no bound on every path to" + where;
  }
  if ((in.is(Operation::kLda) || in.is(Operation::kLdah)) && s[in.rb].kind != K::kConstant)
    return explain(code, flow, k, in.rb, "its base", depth + 1);
  return role + " (" + reg_name(reg) + ") is not a known value after" + where;
}

// Reads one table into `targets`: its entries 0..max, each base + the
// sign-extended entry, all instructions of the procedure. nullopt (and the
// reason in `problem`) when one is not.
std::optional<JumpTable> read_source(const std::vector<InstructionRecord>& code,
                                     const TargetSource& source, const ImageData& data,
                                     std::set<uint64_t>& targets, std::string& problem) {
  if (source.max >= kMaxEntries) {
    problem = "index bound " + std::to_string(source.max) + " too large";
    return std::nullopt;
  }
  const uint64_t first = code.front().address;
  const uint64_t end = code.back().address + 4;
  JumpTable t{.table = source.table, .entries = source.max + 1, .base = source.base};
  // An index bounded only by its width (a byte or a halfword the code
  // extracted, no compare: glibc's vfprintf indexes its label tables by a
  // class byte read from another table) is taken to end where the table
  // does: at the first entry that is no target of the procedure, as long as
  // one came before it.
  // An absolute table ends where the slots stop holding the procedure's
  // addresses too: its index is typically a mask (Lua's 7-bit opcode) wider
  // than the table (83 opcodes).
  const bool width_bound = source.max == 0xff || source.max == 0xffff || source.entry_bytes == 8;
  for (uint64_t k = 0; k < t.entries; ++k) {
    const uint64_t slot = t.table + source.entry_bytes * k;
    const std::optional<uint64_t> entry = data.read(slot, source.entry_bytes);
    const uint64_t target = !entry ? 0 : source.entry_bytes == 8 ? *entry : t.base + sext32(*entry);
    const bool valid = entry && target >= first && target < end && (target - first) % 4 == 0;
    if (!valid && width_bound && k > 0) {
      t.entries = k;
      break;
    }
    if (!entry) {
      problem = "table entry " + std::to_string(k) + " at " + fmt::format("{:x}", slot) +
                " is not in the image's read-only data";
      return std::nullopt;
    }
    if (!valid) {
      problem = "table entry " + std::to_string(k) + " at " + fmt::format("{:x}", slot) +
                " points to " + fmt::format("{:x}", target) +
                ", not an instruction of the procedure";
      return std::nullopt;
    }
    targets.insert(target);
  }
  return t;
}

// Reads the table a jmp's target register describes.
JumpTableOutcome read_table(const std::vector<InstructionRecord>& code, size_t jump,
                            const Dataflow& flow, const ImageData& data) {
  JumpTableOutcome out{.jump = code[jump].address};
  const State before = flow.before(jump);
  if (!before.reached) {
    out.problem = "not reached from the procedure's entries";
    return out;
  }
  const uint8_t reg = code[jump].source_b ? code[jump].source_b->reg.number : kZero;
  const Fact& f = before[reg];
  switch (f.kind) {
    case Fact::Kind::kTarget:
    case Fact::Kind::kTargetSet:
      break;
    case Fact::Kind::kConstant:  // one address (a dispatch's default label)
      if (f.value >= code.front().address && f.value <= code.back().address &&
          (f.value - code.front().address) % 4 == 0)
        break;
      out.problem = "the target is a constant outside the procedure";
      return out;
    case Fact::Kind::kEntry:
      out.problem = "the table entry is not added to a known gp";
      return out;
    case Fact::Kind::kSlot:
      out.problem = "the target is a table slot, not an entry";
      return out;
    default:
      out.problem = "the target is not base + entry of a bounded gp-relative table: " +
                    explain(code, flow, jump, reg, "the jump target");
      return out;
  }
  std::set<uint64_t> targets;
  std::optional<JumpTable> first_table;
  for (const TargetSource& source : target_sources(f)) {
    if (source.table == 0) {
      targets.insert(source.base);
      continue;
    }
    std::optional<JumpTable> t = read_source(code, source, data, targets, out.problem);
    if (!t) return out;
    if (!first_table) first_table = std::move(t);
  }
  JumpTable t = first_table.value_or(JumpTable{});
  t.targets.assign(targets.begin(), targets.end());
  out.table = std::move(t);
  return out;
}

}  // namespace

std::vector<JumpTableOutcome> resolve_jump_tables(std::vector<InstructionRecord>& procedure,
                                                  std::span<const uint64_t> extra_entries,
                                                  const ImageData& data,
                                                  const CallClobbers& calls) {
  std::vector<size_t> jumps;
  for (size_t i = 0; i < procedure.size(); ++i)
    if (procedure[i].control_flow == ControlFlow::kIndirectJump) jumps.push_back(i);
  std::vector<JumpTableOutcome> outcomes;
  if (jumps.empty()) return outcomes;

  // Optimistic iteration: the first round knows no table edges, so code
  // reached only through a table (a nested switch) is not seen yet; each
  // round adds the edges found and runs again, until the edges reproduce
  // themselves. Only that fixed point counts: its dataflow saw every edge.
  std::vector<isa::Instruction> words;
  words.reserve(procedure.size());
  for (const InstructionRecord& r : procedure)
    words.push_back(isa::decode(r.encoding, isa::DecodeMode::kUser));
  std::vector<State> states;
  const DataReader reader(data);
  TargetSets sets;  // this call's, for the meets of its dataflow
  target_sets = &sets;
  struct Reset {
    ~Reset() { target_sets = nullptr; }
  } reset;
  std::map<size_t, std::vector<uint64_t>> edges;
  bool settled = false;
  for (int round = 0; round < kMaxRounds && !settled; ++round) {
    Dataflow flow(procedure, words, extra_entries, edges, reader, calls, states);
    const bool converged = flow.run();
    outcomes.clear();
    std::map<size_t, std::vector<uint64_t>> found;
    for (size_t j : jumps) {
      outcomes.push_back(converged ? read_table(procedure, j, flow, data)
                                   : JumpTableOutcome{.jump = procedure[j].address,
                                                      .problem = "the dataflow did not settle"});
      if (outcomes.back().table) found[j] = outcomes.back().table->targets;
    }
    settled = found == edges;
    edges = std::move(found);
  }
  const bool all = settled && edges.size() == jumps.size();
  for (size_t k = 0; k < jumps.size(); ++k) {
    JumpTableOutcome& o = outcomes[k];
    if (all) {
      procedure[jumps[k]].jump_targets = o.table->targets;
    } else if (o.table) {
      o.table.reset();
      o.problem = settled ? "another indirect jump in the procedure is unresolved"
                          : "the table edges did not reach a fixed point";
    }
  }
  return outcomes;
}

}  // namespace dcpi::calc
