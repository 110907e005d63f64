// The process table of an epoch (epoch-N/processes, docs/profile-db.md;
// issue 29): every process the run had (parent, program, argv[0], exit
// status, start and end cycle) and every thread (its process, its name,
// start and end cycle). Samples are keyed by the thread that took them (the
// driver's PID key holds the tid, DCPI §4.2.1), so reports need the table to
// group threads into processes and to name each process's program rather
// than guess it from its samples. Built by the host from the load map's
// kFork/kExec/kCommand/kExit and kThread/kThreadName/kThreadExit records.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace dcpi {

// Counting mode's virtual counters of one process for one event (issue 26
// item 4; firmware/load_map.h CountsRecord): its own user-mode events and
// its waited-for children's, each with the cycles the event was counted.
struct EventCount {
  uint64_t count = 0;
  uint64_t counted_cycles = 0;
  uint64_t child_count = 0;
  uint64_t child_counted_cycles = 0;
  auto operator<=>(const EventCount&) const = default;
};

// The events map's name for counter 0's issues (the ev5 machine): the
// process's user-mode instructions, never multiplexed.
inline constexpr const char* kInstructionsCountName = "instructions";

struct ProcessCounts {
  uint64_t cycles = 0;                       // the process's time while counting (kernel mode too)
  uint64_t child_cycles = 0;                 // its waited-for descendants'
  uint64_t children = 0;                     // how many descendants' totals are in child_*
  std::map<std::string, EventCount> events;  // by event name (firmware/events.h)
  auto operator<=>(const ProcessCounts&) const = default;
};

struct ProcessEntry {
  uint32_t pid = 0;
  uint32_t parent = 0;                  // 0: the kernel started it
  uint64_t start = 0;                   // guest cycle of its fork or first exec
  std::optional<uint64_t> end;          // guest cycle of its exit; none while it ran
  std::optional<int64_t> status;        // Linux wait status at its exit
  std::string program;                  // path of the program it ran last (execve)
  std::string command;                  // that program's argv[0]
  std::optional<ProcessCounts> counts;  // counting mode (dcpi stat) only
  auto operator<=>(const ProcessEntry&) const = default;
};

// A thread's time under -icount's one clock, booked by the guest's
// scheduler (kernel/cpu_time.h, firmware/load_map.h kThreadExit): the
// cycles it ran and its own share of them (each cycle divided by the
// number of CPUs running threads then). own <= thread.
struct ThreadCpuTime {
  uint64_t thread_cycles = 0;
  uint64_t own_cycles = 0;
  auto operator<=>(const ThreadCpuTime&) const = default;
};

struct ThreadEntry {
  uint32_t tid = 0;
  uint32_t pid = 0;  // its process; tid == pid for a process's first thread
  uint64_t start = 0;
  std::optional<uint64_t> end;
  std::optional<int64_t> status;
  std::string name;                       // the program's name, or what prctl(PR_SET_NAME) set last
  std::optional<ThreadCpuTime> cpu_time;  // from its end (a guest that books it)
  auto operator<=>(const ThreadEntry&) const = default;
};

struct ProcessTable {
  std::map<uint32_t, ProcessEntry> processes;
  std::map<uint32_t, ThreadEntry> threads;

  bool empty() const { return processes.empty() && threads.empty(); }
  // The process a thread belongs to; the id itself for one the table does not
  // know (a database written before issue 29 keyed samples by process).
  uint32_t process_of(uint32_t tid) const;
  // "copy" for a process: its program's last path component, else its
  // first thread's name; empty if the table does not know the pid.
  std::string program_name(uint32_t pid) const;
  // `newer` entries replace entries with the same id; the others stay.
  void merge(const ProcessTable& newer);
  auto operator<=>(const ProcessTable&) const = default;
};

inline constexpr const char* kProcessTableName = "processes";
inline constexpr const char* kProcessTableMagicLine = "dcpi-processes 1";
// Version 2 adds counting mode's lines; written only when a process has
// counts, so a table without them stays readable by version-1 readers.
inline constexpr const char* kProcessTableMagicLine2 = "dcpi-processes 2";
// Version 3 adds the threads' cpu time lines; written only when a thread has
// them.
inline constexpr const char* kProcessTableMagicLine3 = "dcpi-processes 3";

// Text: the magic line, then
//   process\tPID\tPARENT\tSTART\tEND\tSTATUS\tPROGRAM\tCOMMAND
//   thread\tTID\tPID\tSTART\tEND\tSTATUS\tNAME
// and in version 2, for a process counted (dcpi stat), after its process line:
//   counts\tPID\tCYCLES\tCHILD_CYCLES\tCHILDREN
//   count\tPID\tEVENT\tCOUNT\tCOUNTED_CYCLES\tCHILD_COUNT\tCHILD_COUNTED_CYCLES
// and in version 3 also, for a thread that ended on a guest that books it,
// after its thread line:
//   cputime\tTID\tTHREAD_CYCLES\tOWN_CYCLES
// (END and STATUS "-" until it ended; ids ascending), then "crc32c XXXXXXXX"
// over the preceding bytes. Tabs, newlines and other control characters in
// strings are written as '?'.
std::string encode_process_table(const ProcessTable& table);
// Throws ProfileFormatError ("PATH: at offset N: problem").
ProcessTable decode_process_table(std::string_view text, const std::string& path);
// epoch-N/processes, or nothing for an epoch written before the table
// existed. Throws ProfileFormatError if it is damaged.
std::optional<ProcessTable> read_process_table(const std::filesystem::path& epoch_directory);
// The same for one file (nothing if it does not exist).
std::optional<ProcessTable> read_process_table_file(const std::filesystem::path& file);

}  // namespace dcpi
