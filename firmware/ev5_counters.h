/* The 21164's performance counters as our PALcode exposes them through
 * wrperfmon (firmware/pal_abi.h), written once for the PALcode, the driver
 * and the ev5 machine's model (qemu/machine/plugins/ev5/perf_counters.h).
 * Field positions, widths and event selections are the 21164 hardware
 * reference manual's PMCTR/wrperfmon ones (OSF/1 PALcode's argument
 * layout; docs/ev5-machine.md "Event counters"):
 *
 *   counter 0: 16 bits, cycles or issues (mux bit 31, SEL0)
 *   counter 1: 16 bits, mux bits 7:4 (SEL1)
 *   counter 2: 14 bits, mux bits 3:0 (SEL2)
 *   options:   bit 30 KILLU, bit 9 KILLP, bit 8 KILLK (do not count in
 *              user, PAL, kernel mode)
 *   frequency: 2 bits per counter (CTL0 9:8, CTL1 7:6, CTL2 5:4):
 *              0 off, 1 count without interrupts, 2 interrupt when the
 *              whole counter wraps, 3 interrupt every 256 events
 *   values:    counter 0 in 63:48, counter 1 in 47:32, counter 2 in 29:16
 *
 * Counter 0 counting cycles (SEL0 = 0) is PALcode's (the virtual clock,
 * palcode/README.md). Counting issues (SEL0 = 1) on the `ev5` machine it is
 * the model's, like counters 1 and 2 (the kill bits apply to it, as on the
 * 21164; counting mode uses it for instructions, docs/counting-mode.md).
 * Counters 1 and 2 exist only on the `ev5` machine, whose model counts their
 * events and raises their overflow interrupt at the instruction the event
 * belongs to (PAL vector 0x500, `mfpr 248`: the overflow word). Plain C
 * #defines: included by PALcode assembly, C and C++. */
#ifndef DCPI_FIRMWARE_EV5_COUNTERS_H
#define DCPI_FIRMWARE_EV5_COUNTERS_H

/* Mux (wrperfmon 2). */
#define EV5_MUX_SEL0_ISSUES 0x80000000 /* bit 31: counter 0 counts issues */
#define EV5_MUX_SEL1_SHIFT 4
#define EV5_MUX_SEL2_SHIFT 0
#define EV5_MUX_SEL_MASK 0xf
#define EV5_MUX_COUNTERS_1_2 0xff /* the SEL1 and SEL2 fields */

/* Counter 1 selections (SEL1) our model counts; the HRM's others (split
 * issue, pipe dry, replay traps, integer and FP operates, flow changes, I-
 * and D-cache accesses, C-box events) are refused. */
#define EV5_SEL1_NONISSUE_CYCLES 0x0 /* nothing issued, the pipeline frozen */
#define EV5_SEL1_SINGLE_ISSUE_CYCLES 0x4
#define EV5_SEL1_DUAL_ISSUE_CYCLES 0x5
#define EV5_SEL1_TRIPLE_ISSUE_CYCLES 0x6
#define EV5_SEL1_QUAD_ISSUE_CYCLES 0x7
#define EV5_SEL1_LOADS 0xb
#define EV5_SEL1_STORES 0xc
/* Counter 2 selections (SEL2) our model counts; the HRM's others (MAF
 * merges, WB/MAF full replays, external, cycles, barriers, load-locked,
 * S-cache and B-cache) are refused. */
#define EV5_SEL2_LONG_STALLS 0x0 /* stalls longer than 15 cycles */
#define EV5_LONG_STALL_CYCLES 15
/* A JMP/JSR/RET/JSR_COROUTINE target mispredicted (21164 HRM PMCTR SEL2
 * table; OSF/1 pfcntr.h PF5_MUX2_C_PC_MISPR). */
#define EV5_SEL2_PC_MISPREDICTS 0x2
#define EV5_SEL2_BRANCH_MISPREDICTS 0x3
#define EV5_SEL2_ICACHE_MISSES 0x4
#define EV5_SEL2_ITB_MISSES 0x5
#define EV5_SEL2_DCACHE_MISSES 0x6 /* D-cache load misses */
#define EV5_SEL2_DTB_MISSES 0x7
/* LDU replay traps (OSF/1 pfcntr.h PF5_MUX2_C_LDU_REPLAYS): the model's are
 * loads issued one cycle after a store to the same address. */
#define EV5_SEL2_LDU_REPLAYS 0x9

/* Options (wrperfmon 3): the kill bits. */
#define EV5_KILL_USER 0x40000000
#define EV5_KILL_PAL 0x200
#define EV5_KILL_KERNEL 0x100
#define EV5_KILL_MASK (EV5_KILL_USER | EV5_KILL_PAL | EV5_KILL_KERNEL)

/* Frequency (wrperfmon 4). */
#define EV5_CTL0_SHIFT 8
#define EV5_CTL1_SHIFT 6
#define EV5_CTL2_SHIFT 4
#define EV5_CTL_OFF 0
#define EV5_CTL_COUNT 1 /* count, no interrupt */
#define EV5_CTL_WRAP 2  /* interrupt when the counter wraps (2^16, 2^14) */
#define EV5_CTL_256 3   /* interrupt every 256 events */
#define EV5_CTL_COUNTERS_1_2 0xf0

/* Values (wrperfmon 9, ours: counters 1 and 2, and counter 0 when it counts
 * issues on the ev5 machine; wrperfmon 6 writes PALcode's counter 0, the
 * cycles hot path, alone). */
#define EV5_CTR0_SHIFT 48
#define EV5_CTR0_WIDTH 16
#define EV5_CTR1_SHIFT 32
#define EV5_CTR1_WIDTH 16
#define EV5_CTR2_SHIFT 16
#define EV5_CTR2_WIDTH 14

/* The driver's sampling period for counter 2's events (DCPI §4.1.1's
 * randomization, as for cycles): each period uniform in
 * [EV5_EVENT_PERIOD_BASE, EV5_EVENT_PERIOD_BASE + EV5_EVENT_PERIOD_RANGE)
 * events, written into the counter after each sample (it interrupts when
 * it wraps). The host scales event samples by the mean. */
#define EV5_EVENT_PERIOD_BASE 3840
#define EV5_EVENT_PERIOD_RANGE 512

/* The overflow word (mfpr 248 reads it; mtpr 248 clears the bits written):
 * bit N = counter N overflowed (counter 0: only the model's, counting
 * issues). Bit 63: the machine has counters 1 and 2 (the ev5 model is
 * loaded); always 0 on the `qemu` machine. */
#define EV5_OVERFLOW_CTR0 0x1
#define EV5_OVERFLOW_CTR1 0x2
#define EV5_OVERFLOW_CTR2 0x4
#define EV5_OVERFLOW_COUNTERS 0x7
/* Bit 3: a ProfileMe record is complete (firmware/profileme.h, issue 27). */
#define EV5_OVERFLOW_PROFILEME 0x8
/* What PALcode's vector 0x500 delivers (a1 = these bits). */
#define EV5_OVERFLOW_DELIVERED 0xf
#define EV5_HAS_EVENT_COUNTERS_SHIFT 63
#define EV5_IPR_OVERFLOW 248
/* mfpr 247 (ours, qemu_plugin_set_read_word in the QEMU patch): counters 1
 * and 2 (and 0 when it counts issues) in their value fields, as the model had them at the last
 * `call_pal wrperfmon` with a0 = 5 (read); PALcode ORs them into v0. */
#define EV5_IPR_READ 247
#define EV5_PAL_VECTOR_COUNTER 0x0500

#endif
