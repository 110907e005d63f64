/* The interface between our PALcode and the kernel (OSF/1 conventions where
 * OSF/1 defines one). Plain #defines: included by PALcode assembly and C++. */
#ifndef DCPI_FIRMWARE_PAL_ABI_H
#define DCPI_FIRMWARE_PAL_ABI_H

#include "firmware/memory_map.h" /* KSEG_BASE */

/* CALL_PAL function codes (OSF/1 PALcode; perfframe and rtiperf are ours,
 * described below). palcode/pal.S places each entry with these, and every
 * caller (kernel, driver, user runtime, self-tests) names them. 0x00-0x3f
 * are privileged, 0x80-0xbf unprivileged. */
#define CALL_PAL_HALT 0x00
#define CALL_PAL_CFLUSH 0x01
#define CALL_PAL_DRAINA 0x02
#define CALL_PAL_CSERVE 0x09
#define CALL_PAL_WRIPIR 0x0d
#define CALL_PAL_RDMCES 0x10
#define CALL_PAL_WRMCES 0x11
#define CALL_PAL_WRFEN 0x2b
#define CALL_PAL_WRVPTPTR 0x2d
#define CALL_PAL_SWPCTX 0x30
#define CALL_PAL_WRVAL 0x31
#define CALL_PAL_RDVAL 0x32
#define CALL_PAL_TBI 0x33
#define CALL_PAL_WRENT 0x34
#define CALL_PAL_SWPIPL 0x35
#define CALL_PAL_RDPS 0x36
#define CALL_PAL_WRKGP 0x37
#define CALL_PAL_WRUSP 0x38
#define CALL_PAL_WRPERFMON 0x39
#define CALL_PAL_RDUSP 0x3a
#define CALL_PAL_WHAMI 0x3c
#define CALL_PAL_RETSYS 0x3d
#define CALL_PAL_WTINT 0x3e
#define CALL_PAL_RTI 0x3f
#define CALL_PAL_BPT 0x80
#define CALL_PAL_BUGCHK 0x81
#define CALL_PAL_CALLSYS 0x83
#define CALL_PAL_IMB 0x86
#define CALL_PAL_RDUNIQ 0x9e
#define CALL_PAL_WRUNIQ 0x9f
#define CALL_PAL_GENTRAP 0xaa

/* Kernel entry frame that PALcode pushes on the kernel stack (OSF/1). */
#define PAL_FRAME_PS 0
#define PAL_FRAME_PC 8
#define PAL_FRAME_GP 16
#define PAL_FRAME_A0 24
#define PAL_FRAME_A1 32
#define PAL_FRAME_A2 40
#define PAL_FRAME_SIZE 48

/* Processor status. */
#define PS_IPL_MASK 7
#define PS_USER_MODE 8

/* Interrupt levels our PALcode raises the PS to when it delivers. */
#define IPL_DEVICE 4
#define IPL_CLOCK 5
#define IPL_IPI 5 /* DESIGN §5: atomic with respect to the counter interrupt */
#define IPL_PERFCTR 6
#define IPL_HIGH 7

/* wrent classes (a1). */
#define ENT_INT 0
#define ENT_ARITH 1
#define ENT_MM 2
#define ENT_IF 3
#define ENT_UNA 4
#define ENT_SYS 5

/* Interrupt types in a0 at the interrupt entry (OSF/1). */
#define INT_IPI 0
#define INT_CLOCK 1
#define INT_MCHK 2
#define INT_DEVICE 3
#define INT_PERFCTR 4

/* Instruction-fault types in a0 at the IF entry (OSF/1). */
#define IF_BPT 0
#define IF_BUGCHK 1
#define IF_GENTRAP 2
#define IF_FEN 3
#define IF_OPCDEC 4

/* cserve (CALL_PAL 0x09) functions: our platform services. */
#define CSERVE_START_CPU 1 /* a1 cpu, a2 entry pc, a3 stack, a4 argument */
#define CSERVE_SET_TICK 2  /* a1 tick interval in ns (0 disables) */
#define CSERVE_VMTIME 3    /* v0 = virtual clock in ns */
#define CSERVE_PAL_IMAGE 4 /* v0 = KSEG address of {start, end, build-id note start, end} */
#define CSERVE_SLEPT 5     /* a1 = ns the CPU just slept in wtint (for the ev5 model); v0 = 0 */

/* wrperfmon (CALL_PAL 0x39) functions: EV5/OSF function codes. */
#define PERFMON_DISABLE 0
#define PERFMON_ENABLE 1
#define PERFMON_MUX 2
#define PERFMON_OPTIONS 3
#define PERFMON_FREQ 4
#define PERFMON_READ 5
#define PERFMON_WRITE 6
#define PERFMON_ENABLE_CLEAR 7
/* Ours (palcode/README.md): a1 = a per-CPU context (the driver's CpuHot)
 * for the dedicated counter-0 overflow delivery. PALcode saves the
 * interrupted PS, PC and a0-a2 into the context's save area (no OSF/1
 * frame, no stack switch), then jumps to the address in its quadword 0 in
 * kernel mode at IPL 6 with a1 = the context, a2 = the interrupted PC; sp
 * and gp are the interrupted ones. */
#define PERFMON_SET_CONTEXT 8
#define PERF_CTX_ENTRY 0    /* quadword: the handler entry PALcode jumps to */
#define PERF_CTX_SAVE_PS 64 /* the save area, filled by the delivery */
#define PERF_CTX_SAVE_PC 72
#define PERF_CTX_SAVE_A0 80
#define PERF_CTX_SAVE_A1 88
#define PERF_CTX_SAVE_A2 96
/* ProfileMe's dedicated delivery (firmware/profileme.h
 * PERFMON_PROFILEME_ENTRY) saves v0, t0 and t1 here too (the fast path's
 * three scratch registers of counter 0's delivery, HOT_SAVE_R0-R2) and
 * hands the Profile Registers over in them. */
#define PERF_CTX_SAVE_R0 104
#define PERF_CTX_SAVE_R1 112
#define PERF_CTX_SAVE_R2 120
/* CALL_PAL rtiperf (ours): a0 = cycles until counter 0's next overflow,
 * a1 = the context. Starts the count, re-arms the ALARM and returns to the
 * interrupted context from the save area (restores a0-a2, PS, PC). Only
 * valid as the return from the dedicated delivery. */
#define CALL_PAL_RTIPERF 0x3b
/* CALL_PAL perfframe (ours): a1 = the context, still holding a fresh
 * delivery. Turns it into a classic one: pushes the OSF/1 frame (switching
 * to the kernel stack if the interrupted context was in user mode), restarts
 * counter 0 at the overflow time, and returns to the caller with
 * a0 = INT_PERFCTR, a1 = the context, a2 = the observed period in cycles,
 * gp = the kernel's. The handler then ends with rti (after any wrperfmon). */
#define CALL_PAL_PERFFRAME 0x2c
/* PAL vectors QEMU enters for interrupts (offsets from palbr; QEMU's
 * target/alpha/helper.c), and where the clock vector's dedicated counter-0
 * delivery starts (tests/layering/pal_offsets.py checks it): the ev5 model knows a sample is being
 * delivered when PAL runs it, and a PAL stretch entered at a vector was an
 * interrupt (qemu/machine/plugins/ev5/sample_visibility.h). */
#define PAL_VECTOR_IPI 0x0100
#define PAL_VECTOR_CLOCK 0x0180
#define PAL_VECTOR_DEVICE 0x0200
#define PAL_COUNTER_DELIVERY 0x0194
/* Where PALcode's own record of a counter-0 sample (PERFMON_PAL_RECORDS)
 * starts counter 0 anew, with the period it drew in p1 ($9, a PAL shadow
 * register): the ev5 model reads it there, as it reads rtiperf's a0, and a
 * sample's count restarts there (sample_visibility.h). */
#define PAL_COUNTER_RELOAD 0x3c5c
/* cserve CSERVE_SLEPT (QEMU runs CALL_PAL wtint itself, never entering
 * PALcode, so the kernel reports each sleep it measured on the virtual
 * clock) stores the sleep's length (ns) at this offset: the ev5 model books
 * it as cycles there (a halted 21164's cycle counter still counts, so the
 * samples of an idle CPU land where its IPL drops after the sleep), since
 * its own time only follows the instructions it runs. */
#define PAL_WAIT_SLEPT 0x1f94
/* ProfileMe's dedicated delivery starts with four mfpr's of the read word
 * (EV5_IPR_READ) here: before each, the ev5 model sets the word to Profile
 * Register 0, 1, 2 and 9 (PROFILEME_REG_PC, _EVENTS, _LATENCY,
 * _LATENCY2), so the driver gets them in registers, with no CALL_PAL each
 * (issue 27: a record no dearer than a cycle sample). */
#define PAL_PROFILEME_READS 0x0580
/* The virtual clock's nanoseconds per cycle: -icount shift=2 (DESIGN §3). */
#define PAL_NS_PER_CYCLE 4
/* Counter 0 sits in bits 63:48 of read/write values, as on the 21164. */
#define PERFMON_CTR0_SHIFT 48
#define PERFMON_CTR0_WIDTH 16
/* Mux (function 2): bit 31 (the 21164's SEL0) selects counter 0's event:
 * 0 cycles, 1 issues. Under icount both are the instruction count; on the
 * ev5 machine counter 0 counts cycles only. SEL1 and SEL2 (bits 7:0) select
 * counters 1 and 2's events on the ev5 machine (firmware/ev5_counters.h)
 * and are refused (v0 = PERFMON_REFUSED) on the `qemu` machine, which has
 * no such events; so are options (kill bits) and frequencies other than 0
 * there. */
#define PERFMON_MUX_CTR0_ISSUES 0x80000000
#define PERFMON_REFUSED (-1)
/* Ours (ev5 machine): a1 = counters 1 and 2's values in the 21164's fields
 * (firmware/ev5_counters.h); function 6 writes counter 0 alone. */
#define PERFMON_WRITE_EVENTS 9
/* Ours (palcode/README.md; 10-12 are ProfileMe's, firmware/profileme.h):
 * a1 = the context's hash table (CpuHot::table of the context of
 * wrperfmon 8, firmware/sample_table.h, a KSEG address) when PALcode may
 * record counter 0's samples itself: its delivery then hashes the
 * interrupted PC into that table, counts a hit or fills a free way or
 * evicts into the overflow buffer, draws the next period and returns, all
 * in PALmode (no jump to the handler, no save area), and takes the way to
 * the handler only for an eviction into a full overflow buffer. The table
 * with bit 63 clear: the same for every sample but the k-th, counted down
 * in the context's HOT_VALUE_COUNTDOWN byte (the value and mux variants).
 * a1 = 0: every overflow goes to the handler. Per CPU, like the context. */
#define PERFMON_PAL_RECORDS 13

/* Typhoon CCHIP (physical). */
#define TYPHOON_CCHIP_PHYS_HI 0x400d /* << 29 = 0x801a0000000 */
#define TYPHOON_MISC 0x80
#define MISC_ITINTR_SHIFT 4
#define MISC_IPINTR_SHIFT 8
#define MISC_IPREQ_SHIFT 12

#define COM1_KSEG 0xfffffd01fc0003f8
#define COM2_KSEG 0xfffffd01fc0002f8 /* the serial transport (docs/transfer-format.md) */
/* A third 16550 the host adds (-device isa-serial,iobase=0x3e8): the kernel's
 * and init's messages to the host, which no other program can write to
 * (issue 30; qemu/host/host_channel.h). */
#define COM3_KSEG 0xfffffd01fc0003e8

#endif
