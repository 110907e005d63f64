// The process table from the load map (issue 29; firmware/load_map.h's
// kFork, kExec, kCommand, kExit and kThread, kThreadName, kThreadExit).
#include <cstring>

#include "firmware/events.h"
#include "hostdump/load_map_model.h"

namespace dcpi {
namespace {

// The table's strings may be empty (argv[0] = "", prctl("")) but must be
// terminated and printable.
bool table_string_ok(const LoadMapRecord& record) {
  const size_t length = strnlen(record.path, kImagePathMax);
  if (length == kImagePathMax) return false;
  for (size_t i = 0; i < length; ++i)
    if (static_cast<unsigned char>(record.path[i]) < 0x20 || record.path[i] == 0x7f) return false;
  return true;
}

std::string path_of(const LoadMapRecord& record) {
  return std::string(record.path, strnlen(record.path, kImagePathMax));
}

// Linux's name for a new program's thread: the last path component, 15
// characters at most (TASK_COMM_LEN).
std::string comm_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return (slash == std::string::npos ? path : path.substr(slash + 1)).substr(0, 15);
}

ThreadEntry& thread_entry(ProcessTable& table, uint32_t tid, uint32_t pid, uint64_t time) {
  ThreadEntry& thread = table.threads[tid];
  if (thread.tid == 0) thread = ThreadEntry{tid, pid, time, {}, {}, "", {}};
  return thread;
}

ProcessEntry& process_entry(ProcessTable& table, uint32_t pid, uint32_t parent, uint64_t time) {
  ProcessEntry& process = table.processes[pid];
  if (process.pid == 0) process = ProcessEntry{pid, parent, time, {}, {}, "", "", {}};
  return process;
}

}  // namespace

// kExec: the program a process runs (spawned, or execve after a fork).
void LoadMapModel::note_program(const LoadMapRecord& record) {
  ProcessEntry& process = process_entry(table_, record.pid, record.parent_pid, record.time);
  process.program = path_of(record);
  process.command.clear();  // until its kCommand
  ThreadEntry& leader = thread_entry(table_, record.pid, record.pid, record.time);
  leader.name = comm_of(process.program);
}

bool LoadMapModel::apply_table_record(const LoadMapRecord& record) {
  const auto kind = static_cast<LoadKind>(record.kind);
  if (!table_string_ok(record) || record.pid == 0) return false;
  switch (kind) {
    case LoadKind::kFork: {  // the child starts with the parent's images and program
      const auto parent = processes_.find(record.parent_pid);
      begin_space(record.pid,
                  parent != processes_.end() ? parent->second.mappings : std::vector<Mapping>{});
      remember_space(record.pid);
      ProcessEntry& process = table_.processes[record.pid];
      process = ProcessEntry{record.pid, record.parent_pid, record.time, {}, {}, "", "", {}};
      if (const auto from = table_.processes.find(record.parent_pid);
          from != table_.processes.end()) {
        process.program = from->second.program;
        process.command = from->second.command;
      }
      table_.threads[record.pid] =
          ThreadEntry{record.pid, record.pid, record.time, {}, {}, comm_of(path_of(record)), {}};
      return true;
    }
    case LoadKind::kExit: {
      processes_[record.pid].exited = true;
      ProcessEntry& process = process_entry(table_, record.pid, record.parent_pid, record.time);
      process.end = record.time;
      process.status = record.exit_status;
      return true;
    }
    case LoadKind::kCommand:
      process_entry(table_, record.pid, record.parent_pid, record.time).command = path_of(record);
      return true;
    case LoadKind::kThread:
    case LoadKind::kThreadName:
    case LoadKind::kThreadExit: {
      if (record.parent_pid == 0) return false;  // a thread belongs to a process
      ThreadEntry& thread = thread_entry(table_, record.pid, record.parent_pid, record.time);
      thread.pid = record.parent_pid;
      if (kind != LoadKind::kThreadExit) thread.name = path_of(record);
      if (kind == LoadKind::kThreadExit) {
        thread.end = record.time;
        thread.status = record.exit_status;
        // Its cycles running and its own share of them (kernel/cpu_time.h);
        // 0 from a guest before them.
        if (record.load_address != 0 && record.size <= record.load_address)
          thread.cpu_time = ThreadCpuTime{record.load_address, record.size};
      }
      return true;
    }
    default:
      return false;
  }
}

// kCounts (issue 26 item 4): a process's virtual counters at its end; a
// kCountsContinued record adds more events to the process's counts (the
// record before it, same pid).
bool LoadMapModel::apply_counts_record(const LoadMapRecord& as_load_map) {
  CountsRecord record;
  std::memcpy(&record, &as_load_map, sizeof record);
  if (record.pid == 0 || record.slots > kCountSlots) return false;
  ProcessCounts counts{record.cycles, record.child_cycles, record.children, {}};
  ProcessCounts* into = &counts;
  if (record.flags & kCountsContinued) {
    auto process = table_.processes.find(record.pid);
    if (process == table_.processes.end() || !process->second.counts) return false;
    into = &*process->second.counts;
  }
  for (uint32_t i = 0; i < record.slots; ++i) {
    if (record.events[i] >= static_cast<uint16_t>(Event::kCount)) return false;
    const CountSlot& s = record.slot[i];
    const EventCount count{s.count, s.counted_cycles, s.child_count, s.child_counted_cycles};
    if (!into->events.emplace(kEventNames[record.events[i]], count).second) return false;
  }
  if (record.flags & kCountsContinued) return true;
  if (record.flags & kCountsInstructions) {  // counter 0's issues (ev5)
    const CountSlot& s = record.instructions;
    counts.events.emplace(
        kInstructionsCountName,
        EventCount{s.count, s.counted_cycles, s.child_count, s.child_counted_cycles});
  }
  process_entry(table_, record.pid, record.parent_pid, record.time).counts = std::move(counts);
  return true;
}

}  // namespace dcpi
