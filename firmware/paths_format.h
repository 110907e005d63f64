/* The path-profile file: Ball-Larus intraprocedural paths (seed 002 §2,
 * Ammons-Ball-Larus PLDI'97, after Ball-Larus MICRO'96) with the machine's
 * metrics per path, exact, from the model (issue 28 item 1). Described in
 * docs/profile-db.md ("Path profiles").
 *
 * A path is what one activation of a procedure runs between two path
 * boundaries: its entry, a back edge (Ball-Larus's: an edge to an
 * instruction on the stack of a depth-first search of the procedure's
 * control-flow graph from its entry, which the plugin builds from the code
 * at the procedure's first activation: qemu/machine/plugins/contexts/
 * procedure_loops.h), its return. It is stored as its start, the taken
 * transfers along it (fall-throughs are implied) and its last instruction:
 * enough to rebuild its block sequence, and the Ball-Larus number, from the
 * paths themselves.
 * Metrics are the path's own instructions (callees excluded, as a calling
 * context's exclusive metrics).
 *
 * Why here: the ev5 plugin writes it with raw guest PCs, `dcpi run --paths`
 * attributes it (images, ELF addresses) and stores it in the database
 * (profiledb/path_file.h), the reports read it. Framing is the database's
 * container (profiledb/container.h): 8-byte magic, u32 version, u32
 * header_bytes, the rest of the fixed header, the image strings (as in
 * contexts_format.h), then the path records, then the edge records, then
 * CRC-32C of every preceding byte and the trailer magic. Growing it: a new
 * field or record kind comes with a new version. */
#ifndef DCPI_FIRMWARE_PATHS_FORMAT_H
#define DCPI_FIRMWARE_PATHS_FORMAT_H

#include <stdint.h>

#define DCPI_PATHS_MAGIC "DCPIPATH"
#define DCPI_PATHS_VERSION 1
#define DCPI_PATHS_TRAILER_MAGIC 0x48545044u /* "DPTH" */

/* flags: bit 0 set when addresses are attributed (ELF addresses in the
 * images of the string table); clear in the plugin's file (raw guest PCs). */
#define DCPI_PATHS_FLAG_ATTRIBUTED 1u
#define DCPI_PATHS_NO_IMAGE 0xffffffffu

struct DcpiPathsHeader {
  char magic[8];         /* DCPI_PATHS_MAGIC */
  uint32_t version;      /* DCPI_PATHS_VERSION */
  uint32_t header_bytes; /* sizeof(DcpiPathsHeader) + string_bytes */
  uint32_t image_count;  /* 0 in a raw file */
  uint32_t path_count;
  uint32_t edge_count;
  uint16_t flags;   /* DCPI_PATHS_FLAG_* */
  uint16_t machine; /* DCPI_CONTEXTS_MACHINE_* (contexts_format.h): what cycles count */
  uint32_t string_bytes;
  uint32_t reserved[7]; /* 0 */
};

/* One distinct path of one process: (pid, procedure, start, edges, end). */
struct DcpiPathRecord {
  uint32_t pid;           /* the thread's pid (as contexts_format.h's threads) */
  uint32_t image;         /* of procedure, start and end; DCPI_PATHS_NO_IMAGE if unplaced */
  uint64_t procedure;     /* the activation's entry (0: a thread's code before any call) */
  uint64_t start;         /* its first instruction: the entry, or a backward transfer's target */
  uint64_t end;           /* its last: a return, a backward transfer, or where the run stopped */
  uint32_t first_edge;    /* index of its first taken transfer in the edge records */
  uint32_t edge_count;    /* its taken transfers, in order */
  uint64_t count;         /* times it ran */
  uint64_t instructions;  /* its metrics, summed over those runs */
  uint64_t cycles;        /* on the machine's clock */
  uint64_t dcache_misses; /* the ev5 model's events (0 on qemu) */
  uint64_t icache_misses;
  uint64_t dtb_misses;
  uint64_t mispredicts;
};

/* A taken transfer inside a path (to != from + 4; an edge of the DAG). */
struct DcpiPathEdge {
  uint64_t from;
  uint64_t to;
};

#ifdef __cplusplus
static_assert(sizeof(DcpiPathsHeader) == 64, "fixed header layout");
static_assert(sizeof(DcpiPathRecord) == 96, "path record layout");
static_assert(sizeof(DcpiPathEdge) == 16, "edge record layout");
#endif

#endif
