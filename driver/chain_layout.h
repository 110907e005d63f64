/* Offsets the call-chain fast path (driver/fast_handler.S chain_capture)
 * uses in the per-CPU ChainBuffer and in the kernel's Process. Plain
 * #defines for the assembler; driver/chain_sampler.cpp static_asserts the
 * ChainBuffer ones against the C++ layout, kernel/scheduler.cpp the
 * Process ones (as driver/hot_layout.h does for CpuHot). */
#ifndef DCPI_DRIVER_CHAIN_LAYOUT_H
#define DCPI_DRIVER_CHAIN_LAYOUT_H

/* dcpi_chain_buffers[cpu] is cpu << CHAIN_BUFFER_SHIFT bytes in, and
 * dcpi_chain_words[cpu] (the ring, CHAIN_RING_WORDS quadwords) is
 * cpu << CHAIN_RING_SHIFT bytes in. */
#define CHAIN_BUFFER_SHIFT 16
#define CHAIN_RING_WORDS 32768
#define CHAIN_RING_SHIFT 18

#define CB_HEAD 0
#define CB_TAIL 64
#define CB_USER_PID 140
#define CB_SEQUENCE 142
#define CB_PAGE_SPACE 144 /* StackPageCache: space, page, slot, pte, kseg_page, tables_freed */
#define CB_PAGE_PAGE 152
#define CB_PAGE_SLOT 160
#define CB_PAGE_PTE 168
#define CB_PAGE_KSEG 176
#define CB_PAGE_FREED 184
#define CB_USER_WORDS 192 /* ChainReference user: words[2048], lo, hi */
#define CB_USER_LO (CB_USER_WORDS + 2048 * 8)
#define CB_USER_HI (CB_USER_LO + 8)
#define CB_REFERENCE_MASK 2047 /* ChainReference::kWords - 1 */

/* The fast path's limits: it sends no more than this many low quadwords
 * (ChainReference::kScanBelowWords: past it the C++ path looks for a longer
 * unchanged run lower down). */
#define CHAIN_SCAN_BELOW_WORDS 128
/* The largest user slice (kMaxChainStackBytes / 8). */
#define CHAIN_MAX_SLICE_WORDS 2048

/* kernel::Process (kernel/process.h) and kernel::Mm. */
#define PROCESS_MM 88
#define PROCESS_USER_STACK_BASE 208
#define MM_SPACE 0

#endif
