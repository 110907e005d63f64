/* ProfileMe on the ev5 machine (issue 27; seed 004, Dean et al., MICRO-30):
 * instruction sampling. Written once for PALcode, the driver, the ev5
 * model (qemu/machine/plugins/ev5/profile_unit.h) and the host tools.
 *
 * The hardware (the model, docs/profileme.md): a Fetched Instruction
 * Counter per CPU, written by software (wrperfmon PERFMON_PROFILEME_ARM,
 * a1 = fetched instructions until the one to sample, 0 = off), counts the
 * instructions fetched on the path the program takes; the one it reaches
 * is tagged, and what happens to it is recorded in the Profile Registers.
 * After the instruction completes (its block left) the model raises
 * EV5_OVERFLOW_PROFILEME in the overflow word (firmware/ev5_counters.h,
 * PAL vector 0x500, the classic delivery at IPL 6), and the counter stays
 * off until software arms it again. Software reads register k with
 * wrperfmon PERFMON_PROFILEME_READ (a1 = k; v0 = the register).
 *
 * Extensions of ours: the ARM and READ functions (the 21264 had none; the
 * paper's registers were simulated), and the registers' layout below,
 * adapted to the 21164's in-order pipeline. Plain C #defines. */
#ifndef DCPI_FIRMWARE_PROFILEME_H
#define DCPI_FIRMWARE_PROFILEME_H

#include "firmware/ev5_counters.h"

/* wrperfmon functions (firmware/pal_abi.h numbering continues). */
#define PERFMON_PROFILEME_ARM 10
#define PERFMON_PROFILEME_READ 11
/* a1 = the driver's entry for ProfileMe's dedicated delivery (0: the
 * classic one). A record's interrupt alone (EV5_OVERFLOW_PROFILEME without
 * counters 1 and 2) then goes the way counter 0's does (palcode/README.md):
 * PS, PC and a0-a2 into the context of wrperfmon 8, a jump to the entry at
 * IPL 6 with a1 = the context, a2 = the PC, and back with CALL_PAL rtiperf,
 * a0 = 0 (counter 0 untouched). No OSF/1 frame, no kernel entry. That
 * return also re-arms the Fetched Instruction Counter with a2 when a2 is
 * nonzero (the ev5 model takes it at the CALL_PAL, as it takes wrperfmon's
 * PERFMON_PROFILEME_ARM): the assembly record's re-arm costs no PAL call
 * of its own (issue 27). */
#define PERFMON_PROFILEME_ENTRY 12

/* The Profile Registers (PERFMON_PROFILEME_READ a1). */
#define PROFILEME_REG_PC 0      /* the tagged instruction's PC */
#define PROFILEME_REG_EVENTS 1  /* PROFILEME_BIT_* | space << PROFILEME_SPACE_SHIFT */
#define PROFILEME_REG_LATENCY 2 /* cycles, in the PROFILEME_LAT_* fields */
#define PROFILEME_REG_ADDRESS 3 /* its load or store's effective address, else 0 */
#define PROFILEME_REGISTERS 4

/* Paired sampling (seed 004 §4.2): ARM's a1 carries a minor interval in
 * bits 63:48 (0: no pair), the fetched instructions from the first
 * instruction of the pair to the second; bits 47:0 are the major interval
 * to the first. The second instruction's registers are the first's plus
 * PROFILEME_REG_SECOND, and PROFILEME_REG_PAIR_FETCH is the intra-pair
 * fetch latency: the cycles from the first instruction's fetch to the
 * second's (on the in-order 21164 model, a fetch is the cycle the
 * instruction's own charge begins: its I-cache wait, then its wait at the
 * head of the issue queue, then its issue; docs/profileme.md). The
 * interrupt comes when both records are complete. */
#define PROFILEME_ARM_MINOR_SHIFT 48
#define PROFILEME_ARM_MAJOR_MASK 0xffffffffffffull
#define PROFILEME_REG_SECOND 4
#define PROFILEME_REG_PAIR_FETCH 8
#define PROFILEME_REGISTERS_PAIRED 9
/* The latencies seed 004 Table 1 lists beyond register 2's (issue 27 item
 * 1), in a register of their own so that registers 0-8 keep their layout:
 * the first instruction's at PROFILEME_REG_LATENCY2, the pair's second's at
 * PROFILEME_REG_LATENCY2_SECOND (PROFILEME_LAT2_* fields below). */
#define PROFILEME_REG_LATENCY2 9
#define PROFILEME_REG_LATENCY2_SECOND 10
#define PROFILEME_REGISTERS_ALL 11
/* The 21164 issues up to four instructions per cycle (two integer, two
 * floating point) from one aligned block of four: C in seed 004 §5.2.3,
 * and the pair window W that covers every instruction issued with the
 * first (distances 1-3; 4, a fetch block, is the default). */
#define PROFILEME_ISSUE_WIDTH 4
#define PROFILEME_PAIR_WINDOW_DEFAULT 4
#define PROFILEME_PAIR_WINDOW_MAX 64
/* The wrong path (issue 27 item 1): after a mispredicted conditional
 * branch the 21164 has fetched down the predicted path until the branch
 * resolves; the model counts as fetched, and squashed, the instructions
 * from the wrong target to the end of the next aligned fetch block (the
 * instruction buffer's two blocks of four, 21164 HRM: the IDU's IB), and a
 * tag that lands there records an aborted instruction (no RETIRED bit, no
 * latency: it never reached the issue stage). */
#define PROFILEME_WRONG_PATH_BLOCKS 2

/* PROFILEME_REG_EVENTS bits: what happened to the instruction. */
#define PROFILEME_BIT_RETIRED 0x1     /* it completed (else aborted) */
#define PROFILEME_BIT_IMISS 0x2       /* its I-cache line missed */
#define PROFILEME_BIT_ITBMISS 0x4     /* its page missed the ITB */
#define PROFILEME_BIT_DMISS 0x8       /* its load missed the D-cache */
#define PROFILEME_BIT_DTBMISS 0x10    /* its access missed the DTB */
#define PROFILEME_BIT_MISPREDICT 0x20 /* its block was reached by a mispredict */
#define PROFILEME_BIT_PAL 0x40        /* PALcode mode */
#define PROFILEME_BIT_SMISS 0x80      /* its D-cache miss missed the S-cache too */
#define PROFILEME_BIT_BMISS 0x100     /* ... and the B-cache: memory served it */
#define PROFILEME_BIT_WBUF 0x200      /* its store waited for a write-buffer entry */
/* It trapped into PALcode (21164 HRM Table 6-1, the trap entry points):
 * its fetch missed the ITB or its access the DTB (ITBMISS, DTBMISS: the
 * model charges the refill at it), or the CPU entered PALcode's
 * memory-fault (DFAULT) or unaligned (UNALIGN) vector right after its
 * access (docs/profileme.md "Trap": what the model cannot see). */
#define PROFILEME_BIT_TRAP 0x400
#define PROFILEME_BITS 11 /* the bits with an event each (pm_*) */
/* Not an event: it is a load (its access made), so PROFILEME_REG_LATENCY2
 * holds its data's latency. The driver reads register 9 only then: for any
 * other instruction register 9 holds its unit latency alone, the same in
 * every record of its PC, which the host knows from the instruction
 * (docs/profileme.md "The software"). */
#define PROFILEME_BIT_LOAD 0x800
/* It replay-trapped: a load issued one cycle after a store to its address
 * (21164PC HRM p. 2-33, "the replay trap ... costs seven cycles"; the
 * model's load_after_store, docs/ev5-machine.md "Replay traps"). An event
 * (pm_replay) above the load bit, which the first eleven bits and the
 * load bit left no room for below it. */
#define PROFILEME_BIT_REPLAY 0x1000
/* The address space (the model's ASN numbering, swpctx) in bits 63:32. */
#define PROFILEME_SPACE_SHIFT 32

/* PROFILEME_REG_LATENCY fields (each saturates at its width):
 *   63:48 issue: the cycles its issue took (the static cost of its slot)
 *   47:32 fetch: I-cache and ITB stall cycles charged at it (fetch -> slot)
 *   31:0  stall: every other stall charged at it (slot -> issue: operands,
 *         D-cache, DTB, write buffer, units; what DCPI's cycle samples see) */
#define PROFILEME_LAT_STALL_SHIFT 0
#define PROFILEME_LAT_STALL_MASK 0xffffffffull
#define PROFILEME_LAT_FETCH_SHIFT 32
#define PROFILEME_LAT_FETCH_MASK 0xffffull
#define PROFILEME_LAT_ISSUE_SHIFT 48
#define PROFILEME_LAT_ISSUE_MASK 0xffffull

/* PROFILEME_REG_LATENCY2 fields (each saturates at its width), seed 004
 * Table 1's issue -> completion and load issue -> completion on the 21164:
 *   31:0  load: a load's cycles from its issue until its data returned (a
 *         D-cache hit's 2, else the miss's fill from the S-cache, B-cache
 *         or memory); 0 for any other instruction
 *   63:32 complete: the cycles from its issue until its result is
 *         available: a load's data (the load field), an operate's unit
 *         latency (isa/ev5.h ev5_timing), 0 for an aborted one (but
 *         a load whose access was made before the exit: its data's) */
#define PROFILEME_LAT2_LOAD_SHIFT 0
#define PROFILEME_LAT2_LOAD_MASK 0xffffffffull
#define PROFILEME_LAT2_COMPLETE_SHIFT 32
#define PROFILEME_LAT2_COMPLETE_MASK 0xffffffffull

/* Latency distributions (issue 27 item 4): the driver's sums give means,
 * so a record also counts in one log2 bucket of its slot -> issue stall and
 * of its load -> data latency: bucket k holds [2^k, 2^(k+1)) cycles, the
 * last everything from 2^(PROFILEME_LATENCY_BUCKETS-1) on, and a zero
 * latency has no bucket (its records are the rest of pm_samples). */
#define PROFILEME_LATENCY_BUCKETS 8
#ifndef __ASSEMBLER__
static inline unsigned profileme_latency_bucket(unsigned long long cycles) {
  unsigned k = 0; /* a loop: the 21164 has no CTLZ (that is the 21264's CIX) */
  while (k + 1 < PROFILEME_LATENCY_BUCKETS && (cycles >> (k + 1)) != 0) ++k;
  return k;
}
#endif

/* The driver's default mean sampling interval, in fetched instructions,
 * about as often as DCPI's default cycles period. Each interval is drawn
 * from an exponential distribution with this mean (firmware/park_miller.h
 * exponential_interval: memoryless, so every fetched instruction is equally
 * likely to be chosen, the handler's own return after re-arming included),
 * and one record stands for the mean's worth of fetched instructions (the
 * paper's S). The kStats records carry the mean in use
 * (firmware/transfer_ring.h). */
#define PROFILEME_INTERVAL_MEAN 65536

/* What the driver records per sample in its hash table, as events of their
 * own (the table's (PID, PC, EVENT) key; counts are sums): one
 * PROFILEME_EVENT_SAMPLES per record, one of each bit's event per record
 * with that bit, and the latencies' cycles summed. Numbered apart from the
 * counter events (firmware/events.h). */
#define PROFILEME_EVENT_BASE 32
#define PROFILEME_EVENT_LIST(X)                                                               \
  X(SAMPLES, "pm_samples") /* records */                                                      \
  X(RETIRED, "pm_retired") /* records of retired ones */                                      \
  X(IMISS, "pm_imiss")                                                                        \
  X(ITBMISS, "pm_itbmiss")                                                                    \
  X(DMISS, "pm_dmiss")                                                                        \
  X(DTBMISS, "pm_dtbmiss")                                                                    \
  X(MISPREDICT, "pm_mispredict")                                                              \
  X(PAL, "pm_pal")                                                                            \
  X(STALL, "pm_stall_cycles") /* slot -> issue, summed */                                     \
  X(FETCH, "pm_fetch_cycles") /* fetch -> slot, summed */                                     \
  X(ISSUE, "pm_issue_cycles") /* issue, summed */                                             \
  X(SMISS, "pm_smiss")                                                                        \
  X(BMISS, "pm_bmiss")                                                                        \
  X(WBUF, "pm_wbuf")                                                                          \
  X(WINDOW, "pm_window_cycles") /* in progress, summed */                                     \
  X(OVERLAP, "pm_overlap")      /* paired: the other issued with it */                        \
  X(WINDOW_SQ, "pm_window_sq")  /* paired: in progress, squared */                            \
  X(TRAP, "pm_trap")                                                                          \
  X(LOAD, "pm_load_cycles")          /* load issue -> data, summed (= issue -> completion) */ \
  X(STALL_LOG2_0, "pm_stall_log2_0") /* slot -> issue in [1, 2) */                            \
  X(STALL_LOG2_1, "pm_stall_log2_1")                                                          \
  X(STALL_LOG2_2, "pm_stall_log2_2")                                                          \
  X(STALL_LOG2_3, "pm_stall_log2_3")                                                          \
  X(STALL_LOG2_4, "pm_stall_log2_4")                                                          \
  X(STALL_LOG2_5, "pm_stall_log2_5")                                                          \
  X(STALL_LOG2_6, "pm_stall_log2_6")                                                          \
  X(STALL_LOG2_7, "pm_stall_log2_7") /* 128 and more */                                       \
  X(LOAD_LOG2_0, "pm_load_log2_0")   /* load -> data in [1, 2) */                             \
  X(LOAD_LOG2_1, "pm_load_log2_1")                                                            \
  X(LOAD_LOG2_2, "pm_load_log2_2")                                                            \
  X(LOAD_LOG2_3, "pm_load_log2_3")                                                            \
  X(LOAD_LOG2_4, "pm_load_log2_4")                                                            \
  X(LOAD_LOG2_5, "pm_load_log2_5")                                                            \
  X(LOAD_LOG2_6, "pm_load_log2_6")                                                            \
  X(LOAD_LOG2_7, "pm_load_log2_7")                                                            \
  X(REPLAY, "pm_replay") /* records of replay-trapped loads */

#ifndef __ASSEMBLER__
#define PROFILEME_EVENT_ENUM_(name, text) PROFILEME_EVENT_##name,
#define PROFILEME_EVENT_TEXT_(name, text) text,
enum {
  PROFILEME_EVENT_FIRST_ = PROFILEME_EVENT_BASE - 1,
  PROFILEME_EVENT_LIST(PROFILEME_EVENT_ENUM_) PROFILEME_EVENT_END
};
#define PROFILEME_EVENT_COUNT (PROFILEME_EVENT_END - PROFILEME_EVENT_BASE)
#endif

#ifdef __cplusplus
/* The fixed layouts the guest, the model and the host share. */
static_assert(PROFILEME_LAT_STALL_MASK ==
              (1ull << (PROFILEME_LAT_FETCH_SHIFT - PROFILEME_LAT_STALL_SHIFT)) - 1);
static_assert(PROFILEME_LAT_FETCH_MASK ==
              (1ull << (PROFILEME_LAT_ISSUE_SHIFT - PROFILEME_LAT_FETCH_SHIFT)) - 1);
static_assert(PROFILEME_LAT2_LOAD_MASK ==
              (1ull << (PROFILEME_LAT2_COMPLETE_SHIFT - PROFILEME_LAT2_LOAD_SHIFT)) - 1);
static_assert(PROFILEME_LAT2_COMPLETE_SHIFT + 32 == 64 &&
              PROFILEME_LAT2_COMPLETE_MASK == 0xffffffffull);
static_assert(PROFILEME_REG_LATENCY2 == PROFILEME_REGISTERS_PAIRED,
              "the new register follows the paired ones: 0-8 keep their indices");
static_assert(PROFILEME_BIT_TRAP == 1u << (PROFILEME_BITS - 1));
static_assert(PROFILEME_BIT_REPLAY == PROFILEME_BIT_LOAD << 1,
              "the replay bit follows the load bit (driver/profileme_table.h's pattern)");
static_assert(PROFILEME_EVENT_STALL_LOG2_7 - PROFILEME_EVENT_STALL_LOG2_0 + 1 ==
              PROFILEME_LATENCY_BUCKETS);
static_assert(PROFILEME_EVENT_LOAD_LOG2_7 - PROFILEME_EVENT_LOAD_LOG2_0 + 1 ==
              PROFILEME_LATENCY_BUCKETS);
static_assert(PROFILEME_EVENT_WINDOW_SQ == PROFILEME_EVENT_BASE + 16,
              "pm_* numbers are stored: append only");
#endif

#ifdef __cplusplus
/* Seed 004 §5.2.3's wasted issue slots, C x L x S/2 - U x W x S -
 * executions, from the sums of paired records that each stand for
 * `record_scale` = S/2 fetched instructions: `window_cycles`
 * (pm_window_cycles) is L, `overlaps` (pm_overlap) is U, and each retired
 * record's own issue slot (pm_retired x S/2 executions) is used, not
 * wasted. The host's reports and its scoring both compute it here. */
constexpr double profileme_wasted_slots(double window_cycles, double overlaps, double retired,
                                        double record_scale, unsigned pair_window) {
  return (PROFILEME_ISSUE_WIDTH * window_cycles - overlaps * pair_window * 2.0 - retired) *
         record_scale;
}
#endif

#endif
