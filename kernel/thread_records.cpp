// The process table's records in the load map (issue 29, firmware/load_map.h):
// which process each thread belongs to, its name, when it ended, and each
// program's argv[0]. The host builds the database's process table from them
// (hostdump/load_map_model.h); samples carry the thread id.
#include "firmware/load_map.h"
#include "kernel/load_map_writer.h"
#include "kernel/process.h"
#include "kernel/text.h"

namespace kernel {

void record_thread(dcpi::LoadKind kind, const Process* p, int64_t status,
                   const sched::CpuTimes* times) {
  dcpi::LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(kind);
  record.pid = p->pid;
  record.parent_pid = p->tgid;
  record.exit_status = status;
  if (times != nullptr) {  // kThreadExit: firmware/load_map.h
    record.load_address = times->thread_cycles;
    record.size = times->own_cycles;
  }
  copy_name(record.path, sizeof record.path, p->comm);
  load_map_append(record);
}

void record_command(const Process* p, const char* argv0) {
  dcpi::LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(dcpi::LoadKind::kCommand);
  record.pid = p->tgid;
  record.parent_pid = p->parent_pid;
  copy_name(record.path, sizeof record.path, argv0);
  load_map_append(record);
}

void set_comm_from_path(Process* p, const char* path) {
  const char* last = path;
  for (const char* c = path; *c; ++c)
    if (*c == '/' && c[1] != 0) last = c + 1;
  copy_name(p->comm, sizeof p->comm, last);
}

}  // namespace kernel
