/* What a machine plugin may read of the kernel's per-thread Process at a
 * context switch. PALcode's swpctx gets a0 = the new thread's process
 * control block, which is the first member of kernel/process.h's Process
 * (it asserts these offsets), so a plugin that sees swpctx (its load of the
 * page-table base, or the CALL_PAL itself) can read who runs next without
 * any help from the guest. */
#ifndef DCPI_FIRMWARE_PROCESS_BLOCK_H
#define DCPI_FIRMWARE_PROCESS_BLOCK_H

/* The OSF/1 PCB field swpctx loads the page-table base from (pal.S). */
#define DCPI_PCB_PTBR_OFFSET 16
/* The thread id (u32): the contexts plugin keys its trees by it. */
#define DCPI_PCB_PID_OFFSET 48
/* The process id (u32, the thread group): the samples' PID
 * (sampler_context_switch), the truth's address spaces. */
#define DCPI_PCB_TGID_OFFSET 52

#endif
