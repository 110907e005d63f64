// The Alpha instruction set, one row per operation: the single description
// that decode, operands, classes, EV5 scheduling and printing all derive from.
//
// X(Id, mnemonic, opcode, function, Shape, Kind, Ev5Class, bytes, Qualifiers, Extension)
//  - mnemonic: the base name objdump prints (aliases included: bis prints as
//    "or", bic as "andnot", jsr_coroutine as "jcr"); FP qualifiers are appended
//    by the printer from the instruction's trap/rounding bits.
//  - function: operate 7-bit function; FP opcodes 0x14-0x16 the low 6 bits of
//    the 11-bit function (the upper 5 are qualifiers, see Qualifiers); FP 0x17
//    and the FP-format 0x1c rows the exact 11-bit function; misc (0x18) the
//    16-bit function; jump (0x1a) the 2-bit kind; EV6 hw_ld/hw_st the 4-bit and
//    hw_jmp the 3-bit type field; 0 where the opcode alone decides.
//  - bytes: memory access size (0: none).
//
// Encodings from the Alpha Architecture Handbook (v4) and the 21264 hardware
// reference (hw_*); spellings checked against alpha-linux-gnu-objdump by
// tests/unit/isa_oracle_test.cpp.
#pragma once

// clang-format off
#define DCPI_ISA_OPERATIONS(X) \
  X(CallPal,  "call_pal", 0x00, 0x00, kPal,       kCallPal,             kCallPal, 0, kExact, kBase) \
  /* Memory format, integer. */ \
  X(Lda,      "lda",      0x08, 0x00, kMemory,    kLoadAddress,         kIadd,  0, kExact, kBase) \
  X(Ldah,     "ldah",     0x09, 0x00, kMemory,    kLoadAddress,         kIadd,  0, kExact, kBase) \
  X(Ldbu,     "ldbu",     0x0a, 0x00, kMemory,    kLoad,                kIld,   1, kExact, kBwx) \
  X(LdqU,     "ldq_u",    0x0b, 0x00, kMemory,    kLoad,                kIld,   8, kExact, kBase) \
  X(Ldwu,     "ldwu",     0x0c, 0x00, kMemory,    kLoad,                kIld,   2, kExact, kBwx) \
  X(Stw,      "stw",      0x0d, 0x00, kMemory,    kStore,               kIst,   2, kExact, kBwx) \
  X(Stb,      "stb",      0x0e, 0x00, kMemory,    kStore,               kIst,   1, kExact, kBwx) \
  X(StqU,     "stq_u",    0x0f, 0x00, kMemory,    kStore,               kIst,   8, kExact, kBase) \
  /* Integer arithmetic (opcode 0x10). */ \
  X(Addl,     "addl",     0x10, 0x00, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(S4addl,   "s4addl",   0x10, 0x02, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Subl,     "subl",     0x10, 0x09, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(S4subl,   "s4subl",   0x10, 0x0b, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Cmpbge,   "cmpbge",   0x10, 0x0f, kOperate,   kIntegerCompare,      kIcmp,  0, kExact, kBase) \
  X(S8addl,   "s8addl",   0x10, 0x12, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(S8subl,   "s8subl",   0x10, 0x1b, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Cmpult,   "cmpult",   0x10, 0x1d, kOperate,   kIntegerCompare,      kIcmp,  0, kExact, kBase) \
  X(Addq,     "addq",     0x10, 0x20, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(S4addq,   "s4addq",   0x10, 0x22, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Subq,     "subq",     0x10, 0x29, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(S4subq,   "s4subq",   0x10, 0x2b, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Cmpeq,    "cmpeq",    0x10, 0x2d, kOperate,   kIntegerCompare,      kIcmp,  0, kExact, kBase) \
  X(S8addq,   "s8addq",   0x10, 0x32, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(S8subq,   "s8subq",   0x10, 0x3b, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Cmpule,   "cmpule",   0x10, 0x3d, kOperate,   kIntegerCompare,      kIcmp,  0, kExact, kBase) \
  X(AddlV,    "addl/v",   0x10, 0x40, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(SublV,    "subl/v",   0x10, 0x49, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Cmplt,    "cmplt",    0x10, 0x4d, kOperate,   kIntegerCompare,      kIcmp,  0, kExact, kBase) \
  X(AddqV,    "addq/v",   0x10, 0x60, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(SubqV,    "subq/v",   0x10, 0x69, kOperate,   kIntegerArithmetic,   kIadd,  0, kExact, kBase) \
  X(Cmple,    "cmple",    0x10, 0x6d, kOperate,   kIntegerCompare,      kIcmp,  0, kExact, kBase) \
  /* Logical and conditional move (opcode 0x11). */ \
  X(And,      "and",      0x11, 0x00, kOperate,   kIntegerLogical,      kIlog,  0, kExact, kBase) \
  X(Bic,      "andnot",   0x11, 0x08, kOperate,   kIntegerLogical,      kIlog,  0, kExact, kBase) \
  X(Cmovlbs,  "cmovlbs",  0x11, 0x14, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Cmovlbc,  "cmovlbc",  0x11, 0x16, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Bis,      "or",       0x11, 0x20, kOperate,   kIntegerLogical,      kIlog,  0, kExact, kBase) \
  X(Cmoveq,   "cmoveq",   0x11, 0x24, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Cmovne,   "cmovne",   0x11, 0x26, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Ornot,    "ornot",    0x11, 0x28, kOperate,   kIntegerLogical,      kIlog,  0, kExact, kBase) \
  X(Xor,      "xor",      0x11, 0x40, kOperate,   kIntegerLogical,      kIlog,  0, kExact, kBase) \
  X(Cmovlt,   "cmovlt",   0x11, 0x44, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Cmovge,   "cmovge",   0x11, 0x46, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Eqv,      "eqv",      0x11, 0x48, kOperate,   kIntegerLogical,      kIlog,  0, kExact, kBase) \
  X(Amask,    "amask",    0x11, 0x61, kOperateUnary, kIntegerLogical,   kIlog,  0, kExact, kBase) \
  X(Cmovle,   "cmovle",   0x11, 0x64, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Cmovgt,   "cmovgt",   0x11, 0x66, kOperate,   kIntegerConditionalMove, kIcmov, 0, kExact, kBase) \
  X(Implver,  "implver",  0x11, 0x6c, kImplver,   kIntegerLogical,      kIlog,  0, kExact, kBase) \
  /* Shifts and byte manipulation (opcode 0x12). */ \
  X(Mskbl,    "mskbl",    0x12, 0x02, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Extbl,    "extbl",    0x12, 0x06, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Insbl,    "insbl",    0x12, 0x0b, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Mskwl,    "mskwl",    0x12, 0x12, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Extwl,    "extwl",    0x12, 0x16, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Inswl,    "inswl",    0x12, 0x1b, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Mskll,    "mskll",    0x12, 0x22, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Extll,    "extll",    0x12, 0x26, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Insll,    "insll",    0x12, 0x2b, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Zap,      "zap",      0x12, 0x30, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Zapnot,   "zapnot",   0x12, 0x31, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Mskql,    "mskql",    0x12, 0x32, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Srl,      "srl",      0x12, 0x34, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Extql,    "extql",    0x12, 0x36, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Sll,      "sll",      0x12, 0x39, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Insql,    "insql",    0x12, 0x3b, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Sra,      "sra",      0x12, 0x3c, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Mskwh,    "mskwh",    0x12, 0x52, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Inswh,    "inswh",    0x12, 0x57, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Extwh,    "extwh",    0x12, 0x5a, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Msklh,    "msklh",    0x12, 0x62, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Inslh,    "inslh",    0x12, 0x67, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Extlh,    "extlh",    0x12, 0x6a, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Mskqh,    "mskqh",    0x12, 0x72, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Insqh,    "insqh",    0x12, 0x77, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  X(Extqh,    "extqh",    0x12, 0x7a, kOperate,   kIntegerShift,        kShift, 0, kExact, kBase) \
  /* Integer multiply (opcode 0x13). */ \
  X(Mull,     "mull",     0x13, 0x00, kOperate,   kIntegerMultiply,     kImull, 0, kExact, kBase) \
  X(Mulq,     "mulq",     0x13, 0x20, kOperate,   kIntegerMultiply,     kImulq, 0, kExact, kBase) \
  X(Umulh,    "umulh",    0x13, 0x30, kOperate,   kIntegerMultiply,     kImulh, 0, kExact, kBase) \
  X(MullV,    "mull/v",   0x13, 0x40, kOperate,   kIntegerMultiply,     kImull, 0, kExact, kBase) \
  X(MulqV,    "mulq/v",   0x13, 0x60, kOperate,   kIntegerMultiply,     kImulq, 0, kExact, kBase) \
  /* FIX: integer<->FP moves and square roots (opcode 0x14). */ \
  X(Itofs,    "itofs",    0x14, 0x04, kIntToFp,   kIntegerToFp,         kItof,  0, kExact, kFix) \
  X(Sqrtf,    "sqrtf",    0x14, 0x0a, kFpUnary,   kFpSquareRoot,        kFsqrtS, 0, kVax,  kFix) \
  X(Sqrts,    "sqrts",    0x14, 0x0b, kFpUnary,   kFpSquareRoot,        kFsqrtS, 0, kIeee, kFix) \
  X(Itoff,    "itoff",    0x14, 0x14, kIntToFp,   kIntegerToFp,         kItof,  0, kExact, kFix) \
  X(Itoft,    "itoft",    0x14, 0x24, kIntToFp,   kIntegerToFp,         kItof,  0, kExact, kFix) \
  X(Sqrtg,    "sqrtg",    0x14, 0x2a, kFpUnary,   kFpSquareRoot,        kFsqrtT, 0, kVax,  kFix) \
  X(Sqrtt,    "sqrtt",    0x14, 0x2b, kFpUnary,   kFpSquareRoot,        kFsqrtT, 0, kIeee, kFix) \
  /* VAX floating point (opcode 0x15). */ \
  X(Addf,     "addf",     0x15, 0x00, kFpOperate, kFpArithmetic,        kFadd,  0, kVax, kBase) \
  X(Subf,     "subf",     0x15, 0x01, kFpOperate, kFpArithmetic,        kFadd,  0, kVax, kBase) \
  X(Mulf,     "mulf",     0x15, 0x02, kFpOperate, kFpMultiply,          kFmul,  0, kVax, kBase) \
  X(Divf,     "divf",     0x15, 0x03, kFpOperate, kFpDivide,            kFdivS, 0, kVax, kBase) \
  X(Cvtdg,    "cvtdg",    0x15, 0x1e, kFpUnary,   kFpConvert,           kFadd,  0, kVax, kBase) \
  X(Addg,     "addg",     0x15, 0x20, kFpOperate, kFpArithmetic,        kFadd,  0, kVax, kBase) \
  X(Subg,     "subg",     0x15, 0x21, kFpOperate, kFpArithmetic,        kFadd,  0, kVax, kBase) \
  X(Mulg,     "mulg",     0x15, 0x22, kFpOperate, kFpMultiply,          kFmul,  0, kVax, kBase) \
  X(Divg,     "divg",     0x15, 0x23, kFpOperate, kFpDivide,            kFdivT, 0, kVax, kBase) \
  X(Cmpgeq,   "cmpgeq",   0x15, 0x25, kFpOperate, kFpCompare,           kFadd,  0, kVaxCompare, kBase) \
  X(Cmpglt,   "cmpglt",   0x15, 0x26, kFpOperate, kFpCompare,           kFadd,  0, kVaxCompare, kBase) \
  X(Cmpgle,   "cmpgle",   0x15, 0x27, kFpOperate, kFpCompare,           kFadd,  0, kVaxCompare, kBase) \
  X(Cvtgf,    "cvtgf",    0x15, 0x2c, kFpUnary,   kFpConvert,           kFadd,  0, kVax, kBase) \
  X(Cvtgd,    "cvtgd",    0x15, 0x2d, kFpUnary,   kFpConvert,           kFadd,  0, kVax, kBase) \
  X(Cvtgq,    "cvtgq",    0x15, 0x2f, kFpUnary,   kFpConvert,           kFadd,  0, kVaxToInteger, kBase) \
  X(Cvtqf,    "cvtqf",    0x15, 0x3c, kFpUnary,   kFpConvert,           kFadd,  0, kIntegerToVax, kBase) \
  X(Cvtqg,    "cvtqg",    0x15, 0x3e, kFpUnary,   kFpConvert,           kFadd,  0, kIntegerToVax, kBase) \
  /* IEEE floating point (opcode 0x16). */ \
  X(Adds,     "adds",     0x16, 0x00, kFpOperate, kFpArithmetic,        kFadd,  0, kIeee, kBase) \
  X(Subs,     "subs",     0x16, 0x01, kFpOperate, kFpArithmetic,        kFadd,  0, kIeee, kBase) \
  X(Muls,     "muls",     0x16, 0x02, kFpOperate, kFpMultiply,          kFmul,  0, kIeee, kBase) \
  X(Divs,     "divs",     0x16, 0x03, kFpOperate, kFpDivide,            kFdivS, 0, kIeee, kBase) \
  X(Addt,     "addt",     0x16, 0x20, kFpOperate, kFpArithmetic,        kFadd,  0, kIeee, kBase) \
  X(Subt,     "subt",     0x16, 0x21, kFpOperate, kFpArithmetic,        kFadd,  0, kIeee, kBase) \
  X(Mult,     "mult",     0x16, 0x22, kFpOperate, kFpMultiply,          kFmul,  0, kIeee, kBase) \
  X(Divt,     "divt",     0x16, 0x23, kFpOperate, kFpDivide,            kFdivT, 0, kIeee, kBase) \
  X(Cmptun,   "cmptun",   0x16, 0x24, kFpOperate, kFpCompare,           kFadd,  0, kIeeeCompare, kBase) \
  X(Cmpteq,   "cmpteq",   0x16, 0x25, kFpOperate, kFpCompare,           kFadd,  0, kIeeeCompare, kBase) \
  X(Cmptlt,   "cmptlt",   0x16, 0x26, kFpOperate, kFpCompare,           kFadd,  0, kIeeeCompare, kBase) \
  X(Cmptle,   "cmptle",   0x16, 0x27, kFpOperate, kFpCompare,           kFadd,  0, kIeeeCompare, kBase) \
  X(Cvtts,    "cvtts",    0x16, 0x2c, kFpUnary,   kFpConvert,           kFadd,  0, kIeee, kBase) \
  X(Cvtst,    "cvtst",    0x16, 0x2c, kFpUnary,   kFpConvert,           kFadd,  0, kCvtst, kBase) \
  X(Cvttq,    "cvttq",    0x16, 0x2f, kFpUnary,   kFpConvert,           kFadd,  0, kIeeeToInteger, kBase) \
  X(Cvtqs,    "cvtqs",    0x16, 0x3c, kFpUnary,   kFpConvert,           kFadd,  0, kIntegerToIeee, kBase) \
  X(Cvtqt,    "cvtqt",    0x16, 0x3e, kFpUnary,   kFpConvert,           kFadd,  0, kIntegerToIeee, kBase) \
  /* FP data type independent (opcode 0x17, exact 11-bit functions). */ \
  X(Cvtlq,    "cvtlq",    0x17, 0x010, kFpUnary,  kFpConvert,           kFadd,  0, kExact, kBase) \
  X(Cpys,     "cpys",     0x17, 0x020, kFpOperate, kFpCopySign,         kFcpys, 0, kExact, kBase) \
  X(Cpysn,    "cpysn",    0x17, 0x021, kFpOperate, kFpCopySign,         kFcpys, 0, kExact, kBase) \
  X(Cpyse,    "cpyse",    0x17, 0x022, kFpOperate, kFpCopySign,         kFcpys, 0, kExact, kBase) \
  X(MtFpcr,   "mt_fpcr",  0x17, 0x024, kFpcr,     kFpControl,           kFadd,  0, kExact, kBase) \
  X(MfFpcr,   "mf_fpcr",  0x17, 0x025, kFpcr,     kFpControl,           kFadd,  0, kExact, kBase) \
  X(Fcmoveq,  "fcmoveq",  0x17, 0x02a, kFpOperate, kFpConditionalMove,  kFcmov, 0, kExact, kBase) \
  X(Fcmovne,  "fcmovne",  0x17, 0x02b, kFpOperate, kFpConditionalMove,  kFcmov, 0, kExact, kBase) \
  X(Fcmovlt,  "fcmovlt",  0x17, 0x02c, kFpOperate, kFpConditionalMove,  kFcmov, 0, kExact, kBase) \
  X(Fcmovge,  "fcmovge",  0x17, 0x02d, kFpOperate, kFpConditionalMove,  kFcmov, 0, kExact, kBase) \
  X(Fcmovle,  "fcmovle",  0x17, 0x02e, kFpOperate, kFpConditionalMove,  kFcmov, 0, kExact, kBase) \
  X(Fcmovgt,  "fcmovgt",  0x17, 0x02f, kFpOperate, kFpConditionalMove,  kFcmov, 0, kExact, kBase) \
  X(Cvtql,    "cvtql",    0x17, 0x030, kFpUnary,  kFpConvert,           kFadd,  0, kExact, kBase) \
  X(CvtqlV,   "cvtql/v",  0x17, 0x130, kFpUnary,  kFpConvert,           kFadd,  0, kExact, kBase) \
  X(CvtqlSv,  "cvtql/sv", 0x17, 0x530, kFpUnary,  kFpConvert,           kFadd,  0, kExact, kBase) \
  /* Miscellaneous (opcode 0x18, 16-bit function). */ \
  X(Trapb,    "trapb",    0x18, 0x0000, kMiscNone,  kBarrier,           kMisc,  0, kExact, kBase) \
  X(Excb,     "excb",     0x18, 0x0400, kMiscNone,  kBarrier,           kMisc,  0, kExact, kBase) \
  X(Mb,       "mb",       0x18, 0x4000, kMiscNone,  kBarrier,           kMb,    0, kExact, kBase) \
  X(Wmb,      "wmb",      0x18, 0x4400, kMiscNone,  kBarrier,           kMb,    0, kExact, kBase) \
  X(Fetch,    "fetch",    0x18, 0x8000, kMiscRb, kPrefetch,          kMisc,  0, kExact, kBase) \
  X(FetchM,   "fetch_m",  0x18, 0xa000, kMiscRb, kPrefetch,          kMisc,  0, kExact, kBase) \
  X(Rpcc,     "rpcc",     0x18, 0xc000, kMiscRpcc,  kCycleCounter,      kMisc,  0, kExact, kBase) \
  X(Rc,       "rc",       0x18, 0xe000, kMiscRa,    kInterruptFlag,     kMisc,  0, kExact, kBase) \
  X(Ecb,      "ecb",      0x18, 0xe800, kMiscRb, kPrefetch,          kMisc,  0, kExact, kBase) \
  X(Rs,       "rs",       0x18, 0xf000, kMiscRa,    kInterruptFlag,     kMisc,  0, kExact, kBase) \
  X(Wh64,     "wh64",     0x18, 0xf800, kMiscRb, kPrefetch,          kMisc,  0, kExact, kBase) \
  X(Wh64en,   "wh64en",   0x18, 0xfc00, kMiscRb, kPrefetch,          kMisc,  0, kExact, kBase) \
  /* Jumps (opcode 0x1a, function = bits 15:14). */ \
  X(Jmp,      "jmp",      0x1a, 0x0, kJump,       kJump,                kJsr,   0, kExact, kBase) \
  X(Jsr,      "jsr",      0x1a, 0x1, kJump,       kJumpSubroutine,      kJsr,   0, kExact, kBase) \
  X(Ret,      "ret",      0x1a, 0x2, kReturn,     kReturn,              kJsr,   0, kExact, kBase) \
  X(JsrCoroutine, "jcr",  0x1a, 0x3, kReturn,     kCoroutine,           kJsr,   0, kExact, kBase) \
  /* BWX, CIX, MVI and FIX on opcode 0x1c. */ \
  X(Sextb,    "sextb",    0x1c, 0x00, kOperateUnaryRegisterOnly, kIntegerShift, kShift, 0, kExact, kBwx) \
  X(Sextw,    "sextw",    0x1c, 0x01, kOperateUnaryRegisterOnly, kIntegerShift, kShift, 0, kExact, kBwx) \
  X(Ctpop,    "ctpop",    0x1c, 0x30, kOperateUnaryRegisterOnly, kCount,   kMvi,   0, kExact, kCix) \
  X(Perr,     "perr",     0x1c, 0x31, kOperateRegisterOnly, kMultimedia,   kMvi,   0, kExact, kMvi) \
  X(Ctlz,     "ctlz",     0x1c, 0x32, kOperateUnaryRegisterOnly, kCount,   kMvi,   0, kExact, kCix) \
  X(Cttz,     "cttz",     0x1c, 0x33, kOperateUnaryRegisterOnly, kCount,   kMvi,   0, kExact, kCix) \
  X(Unpkbw,   "unpkbw",   0x1c, 0x34, kOperateUnaryRegisterOnly, kMultimedia, kMvi, 0, kExact, kMvi) \
  X(Unpkbl,   "unpkbl",   0x1c, 0x35, kOperateUnaryRegisterOnly, kMultimedia, kMvi, 0, kExact, kMvi) \
  X(Pkwb,     "pkwb",     0x1c, 0x36, kOperateUnaryRegisterOnly, kMultimedia, kMvi, 0, kExact, kMvi) \
  X(Pklb,     "pklb",     0x1c, 0x37, kOperateUnaryRegisterOnly, kMultimedia, kMvi, 0, kExact, kMvi) \
  X(Minsb8,   "minsb8",   0x1c, 0x38, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Minsw4,   "minsw4",   0x1c, 0x39, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Minub8,   "minub8",   0x1c, 0x3a, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Minuw4,   "minuw4",   0x1c, 0x3b, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Maxub8,   "maxub8",   0x1c, 0x3c, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Maxuw4,   "maxuw4",   0x1c, 0x3d, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Maxsb8,   "maxsb8",   0x1c, 0x3e, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Maxsw4,   "maxsw4",   0x1c, 0x3f, kOperate,   kMultimedia,          kMvi,   0, kExact, kMvi) \
  X(Ftoit,    "ftoit",    0x1c, 0x070, kFpToInt,  kFpToInteger,         kFtoi,  0, kExact, kFix) \
  X(Ftois,    "ftois",    0x1c, 0x078, kFpToInt,  kFpToInteger,         kFtoi,  0, kExact, kFix) \
  /* Memory format, FP. */ \
  X(Ldf,      "ldf",      0x20, 0x00, kMemoryFp,  kLoad,                kFld,   4, kExact, kBase) \
  X(Ldg,      "ldg",      0x21, 0x00, kMemoryFp,  kLoad,                kFld,   8, kExact, kBase) \
  X(Lds,      "lds",      0x22, 0x00, kMemoryFp,  kLoad,                kFld,   4, kExact, kBase) \
  X(Ldt,      "ldt",      0x23, 0x00, kMemoryFp,  kLoad,                kFld,   8, kExact, kBase) \
  X(Stf,      "stf",      0x24, 0x00, kMemoryFp,  kStore,               kFst,   4, kExact, kBase) \
  X(Stg,      "stg",      0x25, 0x00, kMemoryFp,  kStore,               kFst,   8, kExact, kBase) \
  X(Sts,      "sts",      0x26, 0x00, kMemoryFp,  kStore,               kFst,   4, kExact, kBase) \
  X(Stt,      "stt",      0x27, 0x00, kMemoryFp,  kStore,               kFst,   8, kExact, kBase) \
  /* Memory format, integer longword/quadword. */ \
  X(Ldl,      "ldl",      0x28, 0x00, kMemory,    kLoad,                kIld,   4, kExact, kBase) \
  X(Ldq,      "ldq",      0x29, 0x00, kMemory,    kLoad,                kIld,   8, kExact, kBase) \
  X(LdlL,     "ldl_l",    0x2a, 0x00, kMemory,    kLoadLocked,          kLdL,   4, kExact, kBase) \
  X(LdqL,     "ldq_l",    0x2b, 0x00, kMemory,    kLoadLocked,          kLdL,   8, kExact, kBase) \
  X(Stl,      "stl",      0x2c, 0x00, kMemory,    kStore,               kIst,   4, kExact, kBase) \
  X(Stq,      "stq",      0x2d, 0x00, kMemory,    kStore,               kIst,   8, kExact, kBase) \
  X(StlC,     "stl_c",    0x2e, 0x00, kMemory,    kStoreConditional,    kStC,   4, kExact, kBase) \
  X(StqC,     "stq_c",    0x2f, 0x00, kMemory,    kStoreConditional,    kStC,   8, kExact, kBase) \
  /* Branch format. */ \
  X(Br,       "br",       0x30, 0x00, kBranch,    kBranch,              kIbr,   0, kExact, kBase) \
  X(Fbeq,     "fbeq",     0x31, 0x00, kBranchFp,  kConditionalBranch,   kFbr,   0, kExact, kBase) \
  X(Fblt,     "fblt",     0x32, 0x00, kBranchFp,  kConditionalBranch,   kFbr,   0, kExact, kBase) \
  X(Fble,     "fble",     0x33, 0x00, kBranchFp,  kConditionalBranch,   kFbr,   0, kExact, kBase) \
  X(Bsr,      "bsr",      0x34, 0x00, kBranch,    kBranchSubroutine,    kJsr,   0, kExact, kBase) \
  X(Fbne,     "fbne",     0x35, 0x00, kBranchFp,  kConditionalBranch,   kFbr,   0, kExact, kBase) \
  X(Fbge,     "fbge",     0x36, 0x00, kBranchFp,  kConditionalBranch,   kFbr,   0, kExact, kBase) \
  X(Fbgt,     "fbgt",     0x37, 0x00, kBranchFp,  kConditionalBranch,   kFbr,   0, kExact, kBase) \
  X(Blbc,     "blbc",     0x38, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  X(Beq,      "beq",      0x39, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  X(Blt,      "blt",      0x3a, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  X(Ble,      "ble",      0x3b, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  X(Blbs,     "blbs",     0x3c, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  X(Bne,      "bne",      0x3d, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  X(Bge,      "bge",      0x3e, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  X(Bgt,      "bgt",      0x3f, 0x00, kBranch,    kConditionalBranch,   kIbr,   0, kExact, kBase) \
  /* 21264 PALmode instructions (decoded only in DecodeMode::kPalcode). */ \
  X(HwMfpr,   "hw_mfpr",  0x19, 0x0, kHwMfpr,     kPalRegister,         kMisc,  0, kExact, kPal) \
  X(HwMtpr,   "hw_mtpr",  0x1d, 0x0, kHwMtpr,     kPalRegister,         kMisc,  0, kExact, kPal) \
  X(HwLdlP,   "hw_ldl/p", 0x1b, 0x0, kHwMemory,   kLoad,                kIld,   4, kExact, kPal) \
  X(HwLdqP,   "hw_ldq/p", 0x1b, 0x1, kHwMemory,   kLoad,                kIld,   8, kExact, kPal) \
  X(HwLdlLP,  "hw_ldl_l/p", 0x1b, 0x2, kHwMemory, kLoadLocked,          kLdL,   4, kExact, kPal) \
  X(HwLdqLP,  "hw_ldq_l/p", 0x1b, 0x3, kHwMemory, kLoadLocked,          kLdL,   8, kExact, kPal) \
  X(HwLdlV,   "hw_ldl/v", 0x1b, 0x4, kHwMemory,   kLoad,                kIld,   4, kExact, kPal) \
  X(HwLdqV,   "hw_ldq/v", 0x1b, 0x5, kHwMemory,   kLoad,                kIld,   8, kExact, kPal) \
  X(HwLdl,    "hw_ldl",   0x1b, 0x8, kHwMemory,   kLoad,                kIld,   4, kExact, kPal) \
  X(HwLdq,    "hw_ldq",   0x1b, 0x9, kHwMemory,   kLoad,                kIld,   8, kExact, kPal) \
  X(HwLdlW,   "hw_ldl/w", 0x1b, 0xa, kHwMemory,   kLoad,                kIld,   4, kExact, kPal) \
  X(HwLdqW,   "hw_ldq/w", 0x1b, 0xb, kHwMemory,   kLoad,                kIld,   8, kExact, kPal) \
  X(HwLdlA,   "hw_ldl/a", 0x1b, 0xc, kHwMemory,   kLoad,                kIld,   4, kExact, kPal) \
  X(HwLdqA,   "hw_ldq/a", 0x1b, 0xd, kHwMemory,   kLoad,                kIld,   8, kExact, kPal) \
  X(HwLdlWa,  "hw_ldl/wa", 0x1b, 0xe, kHwMemory,  kLoad,                kIld,   4, kExact, kPal) \
  X(HwLdqWa,  "hw_ldq/wa", 0x1b, 0xf, kHwMemory,  kLoad,                kIld,   8, kExact, kPal) \
  X(HwStlP,   "hw_stl/p", 0x1f, 0x0, kHwMemory,   kStore,               kIst,   4, kExact, kPal) \
  X(HwStqP,   "hw_stq/p", 0x1f, 0x1, kHwMemory,   kStore,               kIst,   8, kExact, kPal) \
  X(HwStlCP,  "hw_stl_c/p", 0x1f, 0x2, kHwMemory, kStoreConditional,    kStC,   4, kExact, kPal) \
  X(HwStqCP,  "hw_stq_c/p", 0x1f, 0x3, kHwMemory, kStoreConditional,    kStC,   8, kExact, kPal) \
  X(HwStl,    "hw_stl",   0x1f, 0x4, kHwMemory,   kStore,               kIst,   4, kExact, kPal) \
  X(HwStq,    "hw_stq",   0x1f, 0x5, kHwMemory,   kStore,               kIst,   8, kExact, kPal) \
  X(HwStlA,   "hw_stl/a", 0x1f, 0xc, kHwMemory,   kStore,               kIst,   4, kExact, kPal) \
  X(HwStqA,   "hw_stq/a", 0x1f, 0xd, kHwMemory,   kStore,               kIst,   8, kExact, kPal) \
  X(HwJmp,    "hw_jmp",   0x1e, 0x0, kHwJump,     kJump,                kJsr,   0, kExact, kPal) \
  X(HwJmpStall, "hw_jmp/stall", 0x1e, 0x1, kHwJump, kJump,              kJsr,   0, kExact, kPal) \
  X(HwJsr,    "hw_jsr",   0x1e, 0x2, kHwJump,     kJumpSubroutine,      kJsr,   0, kExact, kPal) \
  X(HwJsrStall, "hw_jsr/stall", 0x1e, 0x3, kHwJump, kJumpSubroutine,    kJsr,   0, kExact, kPal) \
  X(HwRet,    "hw_ret",   0x1e, 0x4, kHwReturn,   kReturn,              kJsr,   0, kExact, kPal) \
  X(HwRetStall, "hw_ret/stall", 0x1e, 0x5, kHwReturn, kReturn,          kJsr,   0, kExact, kPal) \
  X(HwJcr,    "hw_jcr",   0x1e, 0x6, kHwReturn,   kCoroutine,           kJsr,   0, kExact, kPal) \
  X(HwJcrStall, "hw_jcr/stall", 0x1e, 0x7, kHwReturn, kCoroutine,       kJsr,   0, kExact, kPal)
// clang-format on
