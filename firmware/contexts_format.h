/* The calling-context file: the exact calling context tree (CCT) of every
 * thread the machine ran (seed 002, Ammons-Ball-Larus PLDI'97, §3: one record
 * per procedure per distinct call path, recursion folded onto the ancestor,
 * each record's metrics exclusive of its callees). Described in
 * docs/profile-db.md ("Calling contexts").
 *
 * Why here: the contexts plugin (qemu/machine/plugins/contexts/) writes it
 * with raw guest PCs, `dcpi run --contexts` attributes those to images and
 * stores the result in the database (profiledb/context_file.h), and the
 * reports read it; analysis/ must never include qemu/, so the layout both
 * sides share is a firmware contract, like the truth format.
 *
 * Framing is the database's container (profiledb/container.h): an 8-byte
 * magic, u32 version, u32 header_bytes, the rest of the fixed header, the
 * image strings, then the body: thread records, then node records (fixed
 * size, little-endian), then CRC-32C of every preceding byte and the trailer
 * magic. Growing it: a new field or record kind comes with a new version. */
#ifndef DCPI_FIRMWARE_CONTEXTS_FORMAT_H
#define DCPI_FIRMWARE_CONTEXTS_FORMAT_H

#include <stdint.h>

#define DCPI_CONTEXTS_MAGIC "DCPICTXT"
#define DCPI_CONTEXTS_VERSION 2                 /* + the ev5 model's events per node (issue 28) */
#define DCPI_CONTEXTS_VERSION_FIRST 1           /* nodes of 56 bytes: no events; still read */
#define DCPI_CONTEXTS_TRAILER_MAGIC 0x43504344u /* "DCPC" */

/* flags: bit 0 set when addresses are attributed (ELF addresses in the
 * images of the string table); clear in the plugin's file (raw guest PCs). */
#define DCPI_CONTEXTS_FLAG_ATTRIBUTED 1u

#define DCPI_CONTEXTS_NO_PARENT 0xffffffffu
#define DCPI_CONTEXTS_NO_IMAGE 0xffffffffu
#define DCPI_CONTEXTS_NO_CPU 0xffffffffu

/* What a node stands for. */
#define DCPI_CONTEXT_ROOT 0   /* a thread's root: code before its first call */
#define DCPI_CONTEXT_CALL 1   /* an activation of `address` called from `call_site` */
#define DCPI_CONTEXT_KERNEL 2 /* kernel and PALcode time while its parent was current */
#define DCPI_CONTEXT_KIND_COUNT 3

/* machine: what `cycles` counts. */
#define DCPI_CONTEXTS_MACHINE_QEMU 0 /* one cycle per instruction (-icount) */
#define DCPI_CONTEXTS_MACHINE_EV5 1  /* the 21164 model's cycles, stalls included, and its events \
                                      */

struct DcpiContextsHeader {
  char magic[8];         /* DCPI_CONTEXTS_MAGIC */
  uint32_t version;      /* DCPI_CONTEXTS_VERSION */
  uint32_t header_bytes; /* sizeof(DcpiContextsHeader) + string_bytes: where the body begins */
  uint32_t image_count;  /* 0 in a raw file */
  uint32_t thread_count;
  uint32_t node_count;
  uint16_t flags;        /* DCPI_CONTEXTS_FLAG_* */
  uint16_t machine;      /* DCPI_CONTEXTS_MACHINE_* */
  uint32_t string_bytes; /* the image table: per image u16 build-id length, u16 path
                          * length, then the lower-case hex build-id and the path */
  uint32_t reserved[7];  /* 0 */
};

/* One thread (one kernel Process: a pid), or a CPU's boot context before
 * its first context switch (pid 0, cpu N, pcb 0). */
struct DcpiContextThread {
  uint32_t pid;
  uint32_t root; /* index of its DCPI_CONTEXT_ROOT node */
  uint32_t cpu;  /* DCPI_CONTEXTS_NO_CPU but for boot contexts */
  uint32_t reserved;
  uint64_t pcb; /* KSEG address of its process control block */
};

/* Nodes come after their parents (parent < index). */
struct DcpiContextNode {
  uint32_t parent; /* DCPI_CONTEXTS_NO_PARENT for a root only */
  uint16_t kind;   /* DCPI_CONTEXT_* */
  uint16_t reserved;
  uint32_t image;        /* of address: an image index, or DCPI_CONTEXTS_NO_IMAGE */
  uint32_t site_image;   /* of call_site */
  uint64_t address;      /* the procedure entered: the callee's first PC (0: root, kernel) */
  uint64_t call_site;    /* the bsr/jsr that entered it first (0: root, kernel) */
  uint64_t calls;        /* activations, folded recursive ones included */
  uint64_t instructions; /* exclusive: executed while this context was current */
  uint64_t cycles;       /* exclusive, on the machine's clock */
  /* Version 2: the ev5 model's events, exclusive, booked where its truth
   * books them (docs/ev5-machine.md); 0 on the qemu machine, which has none. */
  uint64_t dcache_misses;
  uint64_t icache_misses;
  uint64_t dtb_misses;
  uint64_t mispredicts;
};

#ifdef __cplusplus
static_assert(sizeof(DcpiContextsHeader) == 64, "fixed header layout");
static_assert(sizeof(DcpiContextThread) == 24, "thread record layout");
static_assert(sizeof(DcpiContextNode) == 88, "node record layout");
#endif

/* A version 1 node is the first 56 bytes of this one. */
#define DCPI_CONTEXT_NODE_V1_BYTES 56

/* Where a thread's pid is in its kernel Process (kernel/process.h asserts
 * it): the plugin reads it at each swpctx from the new PCB. */
#include "firmware/process_block.h"

#endif
