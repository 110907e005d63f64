/* The truth file: what the machine really did during a run (exact
 * executions, control transfers and, on a timed machine, every cycle by
 * cause), the role dcpix played in DCPI §6.2 and what DCPI never had for
 * stalls. Described in docs/exec-counts-format.md.
 *
 * Why here: the writer lives with the machine (qemu/machine/truth/, used by
 * both plugins) and the reader with the analysis (analysis/calc/truth/), and
 * analysis/ must never include qemu/. firmware/ is the room of contracts
 * written once that every room may include, and a file one side writes and
 * the other reads is such a contract, like the transfer ring. Plain C (the
 * X-macro below), so the Python tests' module (tests/support/truth_file.py)
 * reads its version and record kinds from this very file.
 *
 * A text file, one record per line: `KIND FIELD...`, fields separated by one
 * space (the reader also takes tabs and runs of blanks), `#` starts a
 * comment. The first line is `dcpi-exec-counts VERSION`. PCs are hex
 * without 0x, counts decimal.
 *
 * Growing it: a new record kind comes with a new version, never inside an
 * old one. A reader takes the versions up to DCPI_TRUTH_VERSION_NEWEST and
 * rejects a newer file, or a record kind unknown to the file's version, with
 * a one-line error naming the file and the line: it never skips what it
 * cannot read, because a truth that lost lines silently scores estimates
 * wrongly. */
#ifndef DCPI_FIRMWARE_TRUTH_FORMAT_H
#define DCPI_FIRMWARE_TRUTH_FORMAT_H

#define DCPI_TRUTH_MAGIC "dcpi-exec-counts"
#define DCPI_TRUTH_VERSION_COUNTS 1  /* exec_counts (machine qemu): executions and edges */
#define DCPI_TRUTH_VERSION_TIMED 2   /* the ev5 machine: + machine, cycles, stall, event */
#define DCPI_TRUTH_VERSION_IMAGES 3  /* + image: the programs the run booted (issue 30) */
#define DCPI_TRUTH_VERSION_VISIBLE 4 /* + visible: where the counter can put a sample */
#define DCPI_TRUTH_VERSION_SPACES 5  /* + space, map: user code per address space */
#define DCPI_TRUTH_VERSION_EVENTS 6  /* + pcevent: each counter event's count per PC */
#define DCPI_TRUTH_VERSION_NEWEST 6

/* One row per record kind: name in code, the word that starts its line, the
 * first version that has it, its fields (the optional ones in brackets).
 * The lines of a file come in this order, each kind sorted by its fields. */
#define DCPI_TRUTH_RECORDS(X)                                                         \
  X(IMAGE, "image", 3, "BUILD_ID PATH")             /* a booted image, - if none */   \
  X(MACHINE, "machine", 2, "NAME")                  /* qemu or ev5 */                 \
  X(VCPUS, "vcpus", 1, "N")                         /* informational */               \
  X(INSN, "insn", 1, "PC COUNT")                    /* executions of PC */            \
  X(EDGE, "edge", 1, "FROM TO COUNT")               /* transfers, TO != FROM+4 */     \
  X(CYCLES, "cycles", 2, "PC CYCLES")               /* at the head of the queue */    \
  X(STALL, "stall", 2, "PC CAUSE CYCLES [CULPRIT]") /* isa/stall_causes.h names */    \
  X(EVENT, "event", 2, "NAME COUNT")                /* whole-run counts */            \
  X(VISIBLE, "visible", 4, "PC CYCLES")             /* cycles a sample can land on */ \
  X(PCEVENT, "pcevent", 6, "PC NAME COUNT")         /* an event's count at PC */      \
  X(SPACE, "space", 5, "PID GENERATION")            /* starts an address space */     \
  X(MAP, "map", 5, "PID GENERATION LOAD SIZE LINK BUILD_ID PATH") /* its images */

#define DCPI_TRUTH_RECORD_ENUM_(name, word, since, fields) DCPI_TRUTH_##name,
enum { DCPI_TRUTH_RECORDS(DCPI_TRUTH_RECORD_ENUM_) DCPI_TRUTH_RECORD_COUNT };

/* `cpus N`: an older spelling of `vcpus`, read, never written. */
#define DCPI_TRUTH_CPUS_ALIAS "cpus"
/* The machines a `machine` line names. */
#define DCPI_TRUTH_MACHINE_QEMU "qemu"
#define DCPI_TRUTH_MACHINE_EV5 "ev5"
/* A truth's `image` lines name the images the run booted (the kernel, the
 * PALcode, every program of the initrd) by build-id: the truth counts guest
 * addresses, which every program shares (0x120000000...), so a reader checks
 * the image it scores against them. The plugins copy them from the file
 * their images= argument names (dcpi run writes it), one "BUILD_ID PATH"
 * per line. */
#define DCPI_TRUTH_NO_BUILD_ID "-"

/* `visible PC CYCLES` (ev5 with a sampling run, issue 25): the cycles a
 * counter sample can land on at PC, the sample-placement oracle's
 * expectation: none between a delivery and the handler's reload, and
 * PAL's, which takes no interrupts (DCPI §4.1.3), where PAL returns to.
 * `event visible_cycles N` is their sum (it marks a file that has them:
 * a PC without a `visible` line then has none). Written after the events. */
#define DCPI_TRUTH_VISIBLE_CYCLES_EVENT "visible_cycles"

/* Address spaces (version 5, the ev5 machine). Every program is linked at
 * the same addresses (0x120000000...), and a library lands wherever each
 * process's loader puts it, so a guest address alone does not say whose
 * instruction it was. A `space PID GENERATION` line starts the lines of
 * one address space: the insn, edge, cycles, stall and visible lines after
 * it, up to the next `space` line, are user-mode PCs of process PID (the
 * thread group: what samples carry) in its GENERATION-th address space,
 * counted from 0 in the order of the load map's kFork and kExec records of
 * PID (firmware/load_map.h): each of them starts a new one. The plugin sees
 * a new generation when PID runs on a new page-table base (swpctx): a
 * fork's copy, and an exec's fresh space, both allocated while the old one
 * still exists (kernel/exec.cpp), and PIDs are never reused. Lines before
 * the first `space` line are kernel and PALcode PCs, shared by all.
 * `map PID GENERATION LOAD SIZE LINK BUILD_ID PATH`: an image of that
 * space ([LOAD, LOAD+SIZE) at ELF address LINK; BUILD_ID "-" when none),
 * appended by the run (dcpi run), which has the load map the plugin lacks;
 * they come last. A reader that sums the spaces by PC gets version 4's
 * numbers. */

/* `pcevent PC NAME COUNT` (version 6, the ev5 machine, issue 26): how many
 * times the event NAME (a firmware/events.h name the 21164's counters 1 and
 * 2 select: loads, stores, imiss, itbmiss, dmiss, dtbmiss, branchmp; a file
 * from before counter 1 was sampled has no loads and stores) happened at PC,
 * booked
 * at the instruction the model charges it to and the counter interrupt is
 * delivered at (docs/ev5-machine.md "Event counters"), in every mode (the
 * kill bits select what a counter counts, not what happened). A per-PC
 * line: in a space's lines, that space's. `event NAME N` (NAME the same
 * word) is their sum over the whole file; `event imiss` can fall short of
 * the model's `event icache_miss`, which also counts a miss found at a
 * block's entry for a later line that fetch never reached (the block was
 * left before it), and `itbmiss` of `itb_miss` likewise. */

/* `pcevent PC visible_NAME W` (the ev5 machine, a sampling run that sampled
 * event NAME on counter 1 or 2, issue 26): the events a sample of NAME can
 * land on at PC, the placement oracle's expectation for event samples as
 * `visible` is for cycles: an event counted in PALcode or at IPL 6 and above
 * (the counter interrupt's IPL, DCPI's blind spots) lands where the
 * interrupt can be taken, none between an overflow and the driver's next
 * write of the counter; only events the counter counted (its kill bits).
 * `event visible_NAME N` is their sum (present, 0 included, for each event
 * a counter sampled). New names, no new version. */
#define DCPI_TRUTH_VISIBLE_EVENT_PREFIX "visible_"

/* The comment the exec_counts plugin writes under its header. */
#define DCPI_TRUTH_COUNTS_COMMENT "# insn PC COUNT; edge FROM TO COUNT (TO != FROM+4)"

#ifdef __cplusplus
namespace dcpi::truth_format {

enum class Record : int {
  kImage = DCPI_TRUTH_IMAGE,
  kMachine = DCPI_TRUTH_MACHINE,
  kVcpus = DCPI_TRUTH_VCPUS,
  kInsn = DCPI_TRUTH_INSN,
  kEdge = DCPI_TRUTH_EDGE,
  kCycles = DCPI_TRUTH_CYCLES,
  kStall = DCPI_TRUTH_STALL,
  kEvent = DCPI_TRUTH_EVENT,
  kVisible = DCPI_TRUTH_VISIBLE,
  kPcEvent = DCPI_TRUTH_PCEVENT,
  kSpace = DCPI_TRUTH_SPACE,
  kMap = DCPI_TRUTH_MAP,
};

struct RecordInfo {
  Record record;
  const char* word;    // the first word of its line
  int since;           // the first version that has it
  const char* fields;  // for docs and errors: "PC CAUSE CYCLES [CULPRIT]"
};

inline constexpr RecordInfo kRecords[] = {
#define DCPI_TRUTH_RECORD_ROW_(name, word, since, fields) \
  {static_cast<Record>(DCPI_TRUTH_##name), word, since, fields},
    DCPI_TRUTH_RECORDS(DCPI_TRUTH_RECORD_ROW_)
#undef DCPI_TRUTH_RECORD_ROW_
};
static_assert(sizeof(kRecords) / sizeof(kRecords[0]) == DCPI_TRUTH_RECORD_COUNT &&
                  DCPI_TRUTH_RECORD_COUNT == 12,
              "a new record kind needs its Record name here");

constexpr const RecordInfo& record_info(Record record) {
  return kRecords[static_cast<int>(record)];
}

// How many fields a record takes: the words of `fields`, the bracketed ones
// optional.
struct FieldCount {
  int low = 0, high = 0;
};
constexpr FieldCount field_count(Record record) {
  FieldCount count;
  bool in_word = false;
  for (const char* c = record_info(record).fields; *c; ++c) {
    if (*c == ' ') {
      in_word = false;
    } else if (!in_word) {
      in_word = true;
      ++count.high;
      if (*c != '[') ++count.low;
    }
  }
  return count;
}
static_assert(field_count(Record::kStall).low == 3 && field_count(Record::kStall).high == 4);
static_assert(field_count(Record::kEdge).low == 3 && field_count(Record::kEdge).high == 3);

}  // namespace dcpi::truth_format
#endif

#endif
