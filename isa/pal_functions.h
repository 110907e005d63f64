// CALL_PAL function names. objdump names only a handful (bpt, callsys, ...);
// osf_pal_name() also knows the OSF/1 (Digital UNIX / Linux) PALcode calls our
// PALcode implements, for listings that want them. Freestanding.
#pragma once
#include <cstdint>

namespace dcpi::isa {

struct PalName {
  uint32_t function;
  const char* name;
};

// The functions objdump prints by name instead of "call_pal 0x..".
inline constexpr PalName kObjdumpPalNames[] = {
    {0x00, "halt"}, {0x02, "draina"}, {0x80, "bpt"},    {0x81, "bugchk"},  {0x83, "callsys"},
    {0x86, "imb"},  {0x9e, "rduniq"}, {0x9f, "wruniq"}, {0xaa, "gentrap"},
};

// OSF/1 PALcode functions (Alpha Architecture Handbook, OSF/1 chapter).
inline constexpr PalName kOsfPalNames[] = {
    {0x00, "halt"},     {0x01, "cflush"},  {0x02, "draina"},  {0x09, "cserve"}, {0x0a, "swppal"},
    {0x0d, "wripir"},   {0x10, "rdmces"},  {0x11, "wrmces"},  {0x2b, "wrfen"},  {0x2d, "wrvptptr"},
    {0x30, "swpctx"},   {0x31, "wrval"},   {0x32, "rdval"},   {0x33, "tbi"},    {0x34, "wrent"},
    {0x35, "swpipl"},   {0x36, "rdps"},    {0x37, "wrkgp"},   {0x38, "wrusp"},  {0x39, "wrperfmon"},
    {0x3a, "rdusp"},    {0x3c, "whami"},   {0x3d, "retsys"},  {0x3e, "wtint"},  {0x3f, "rti"},
    {0x80, "bpt"},      {0x81, "bugchk"},  {0x83, "callsys"}, {0x86, "imb"},    {0x9e, "rdunique"},
    {0x9f, "wrunique"}, {0xaa, "gentrap"},
};

constexpr const char* find_pal_name(const PalName* begin, const PalName* end, uint32_t function) {
  for (const PalName* p = begin; p != end; ++p) {
    if (p->function == function) return p->name;
  }
  return nullptr;
}

constexpr const char* objdump_pal_name(uint32_t function) {
  return find_pal_name(kObjdumpPalNames,
                       kObjdumpPalNames + sizeof(kObjdumpPalNames) / sizeof(PalName), function);
}

constexpr const char* osf_pal_name(uint32_t function) {
  return find_pal_name(kOsfPalNames, kOsfPalNames + sizeof(kOsfPalNames) / sizeof(PalName),
                       function);
}

// Whether CALL_PAL `function` runs PALcode and comes back to the next
// instruction on our machine, so that PALcode's cycles are sampled there
// (DCPI §4.1.3). QEMU translates these inline, one instruction and no
// PALcode (target/alpha/translate.c; docs/qemu-deviations.md): imb,
// rdunique and wrunique, and in kernel mode cflush, draina, wrvptptr,
// wrval, rdval, swpipl, rdps, wrusp, rdusp, whami and wtint. halt, retsys
// and rti never come back to the next instruction.
constexpr bool palcode_returns_to_next(uint32_t function) {
  constexpr uint32_t kInline[] = {0x01, 0x02, 0x2d, 0x31, 0x32, 0x35, 0x36,
                                  0x38, 0x3a, 0x3c, 0x3e, 0x86, 0x9e, 0x9f};
  for (uint32_t f : kInline)
    if (f == function) return false;
  return function != 0x00 && function != 0x3d && function != 0x3f;
}
static_assert(palcode_returns_to_next(0x83) &&
              palcode_returns_to_next(0x39));  // callsys, wrperfmon
static_assert(!palcode_returns_to_next(0x9e) && !palcode_returns_to_next(0x35));  // rduniq, swpipl
static_assert(!palcode_returns_to_next(0x3f) && !palcode_returns_to_next(0x00));  // rti, halt

// Whether the instruction after CALL_PAL `function` is where time no
// instruction accounts for is sampled: after wtint, a halted CPU's sleep
// (QEMU runs it inline; the counter counts on); after swpipl, a masked
// stretch's overflow, taken when the IPL drops (DCPI §4.1.3's high-IPL
// blind spot). An execution count cannot say how many samples land there.
constexpr bool uncounted_time_lands_after(uint32_t function) {
  return function == 0x3e || function == 0x35;  // wtint, swpipl
}

}  // namespace dcpi::isa
