#include "profiledb/process_table.h"

#include <charconv>
#include <vector>

#include "profiledb/container.h"
#include "profiledb/profile_db.h"
#include "profiledb/tab_text.h"

namespace dcpi {
namespace {

// A guest string as one field: no tab, newline or other control character.
std::string field_text(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

template <typename T>
std::string optional_text(const std::optional<T>& value) {
  return value ? std::to_string(*value) : "-";
}

template <typename T>
bool parse_number(std::string_view text, T* value) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

template <typename T>
bool parse_optional(std::string_view text, std::optional<T>* value) {
  if (text == "-") return true;
  T parsed;
  if (!parse_number(text, &parsed)) return false;
  *value = parsed;
  return true;
}

bool clean(std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

// One "process" line's fields after the tag; false if malformed.
bool parse_process(const std::vector<std::string_view>& f, ProcessEntry* p) {
  return f.size() == 8 && parse_number(f[1], &p->pid) && p->pid != 0 &&
         parse_number(f[2], &p->parent) && parse_number(f[3], &p->start) &&
         parse_optional(f[4], &p->end) && parse_optional(f[5], &p->status) &&
         p->end.has_value() == p->status.has_value() && clean(f[6]) && clean(f[7]) &&
         (p->program.assign(f[6]), p->command.assign(f[7]), true);
}

bool parse_thread(const std::vector<std::string_view>& f, ThreadEntry* t) {
  return f.size() == 7 && parse_number(f[1], &t->tid) && t->tid != 0 &&
         parse_number(f[2], &t->pid) && t->pid != 0 && parse_number(f[3], &t->start) &&
         parse_optional(f[4], &t->end) && parse_optional(f[5], &t->status) &&
         t->end.has_value() == t->status.has_value() && clean(f[6]) && (t->name.assign(f[6]), true);
}

// A "cputime" line (version 3) of the thread listed just before: only the
// line right after a thread's has its id as `last_thread`, so a thread
// cannot have two.
bool parse_cpu_time(const std::vector<std::string_view>& f, ProcessTable& table,
                    uint32_t last_thread) {
  uint32_t tid = 0;
  ThreadCpuTime time;
  if (f.size() != 4 || !parse_number(f[1], &tid) || tid == 0 || tid != last_thread ||
      !parse_number(f[2], &time.thread_cycles) || !parse_number(f[3], &time.own_cycles) ||
      time.own_cycles > time.thread_cycles)
    return false;
  table.threads.at(tid).cpu_time = time;
  return true;
}

// "counts" and "count" lines (version 2) of a process already listed.
bool parse_counts(const std::vector<std::string_view>& f, ProcessTable& table) {
  uint32_t pid = 0;
  if (f.size() != 5 || !parse_number(f[1], &pid)) return false;
  const auto process = table.processes.find(pid);
  if (process == table.processes.end() || process->second.counts) return false;
  ProcessCounts counts;
  if (!parse_number(f[2], &counts.cycles) || !parse_number(f[3], &counts.child_cycles) ||
      !parse_number(f[4], &counts.children))
    return false;
  process->second.counts = counts;
  return true;
}

bool parse_count(const std::vector<std::string_view>& f, ProcessTable& table) {
  uint32_t pid = 0;
  EventCount e;
  if (f.size() != 7 || !parse_number(f[1], &pid) || f[2].empty() || !clean(f[2]) ||
      !parse_number(f[3], &e.count) || !parse_number(f[4], &e.counted_cycles) ||
      !parse_number(f[5], &e.child_count) || !parse_number(f[6], &e.child_counted_cycles))
    return false;
  const auto process = table.processes.find(pid);
  if (process == table.processes.end() || !process->second.counts) return false;
  return process->second.counts->events.emplace(std::string(f[2]), e).second;
}

std::string counts_text(uint32_t pid, const ProcessCounts& c) {
  const std::string id = std::to_string(pid);
  std::string text = "counts\t" + id + '\t' + std::to_string(c.cycles) + '\t' +
                     std::to_string(c.child_cycles) + '\t' + std::to_string(c.children) + '\n';
  for (const auto& [name, e] : c.events)
    text += "count\t" + id + '\t' + field_text(name) + '\t' + std::to_string(e.count) + '\t' +
            std::to_string(e.counted_cycles) + '\t' + std::to_string(e.child_count) + '\t' +
            std::to_string(e.child_counted_cycles) + '\n';
  return text;
}

}  // namespace

uint32_t ProcessTable::process_of(uint32_t tid) const {
  const auto thread = threads.find(tid);
  return thread == threads.end() ? tid : thread->second.pid;
}

std::string ProcessTable::program_name(uint32_t pid) const {
  if (const auto p = processes.find(pid); p != processes.end() && !p->second.program.empty()) {
    const std::string& path = p->second.program;
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  }
  if (const auto t = threads.find(pid); t != threads.end()) return t->second.name;
  return "";
}

void ProcessTable::merge(const ProcessTable& newer) {
  for (const auto& [pid, entry] : newer.processes) processes[pid] = entry;
  for (const auto& [tid, entry] : newer.threads) threads[tid] = entry;
}

std::string encode_process_table(const ProcessTable& table) {
  bool counted = false, timed = false;
  for (const auto& [pid, p] : table.processes) counted |= p.counts.has_value();
  for (const auto& [tid, t] : table.threads) timed |= t.cpu_time.has_value();
  std::string text = std::string(timed     ? kProcessTableMagicLine3
                                 : counted ? kProcessTableMagicLine2
                                           : kProcessTableMagicLine) +
                     '\n';
  for (const auto& [pid, p] : table.processes) {
    text += "process\t" + std::to_string(pid) + '\t' + std::to_string(p.parent) + '\t' +
            std::to_string(p.start) + '\t' + optional_text(p.end) + '\t' + optional_text(p.status) +
            '\t' + field_text(p.program) + '\t' + field_text(p.command) + '\n';
    if (p.counts) text += counts_text(pid, *p.counts);
  }
  for (const auto& [tid, t] : table.threads) {
    text += "thread\t" + std::to_string(tid) + '\t' + std::to_string(t.pid) + '\t' +
            std::to_string(t.start) + '\t' + optional_text(t.end) + '\t' + optional_text(t.status) +
            '\t' + field_text(t.name) + '\n';
    if (t.cpu_time)
      text += "cputime\t" + std::to_string(tid) + '\t' + std::to_string(t.cpu_time->thread_cycles) +
              '\t' + std::to_string(t.cpu_time->own_cycles) + '\n';
  }
  return with_crc_line(text);
}

ProcessTable decode_process_table(std::string_view text, const std::string& path) {
  const size_t crc_line = checked_crc_body(text, path, "process table").size();
  const std::string magic = std::string(kProcessTableMagicLine) + '\n';
  const std::string magic2 = std::string(kProcessTableMagicLine2) + '\n';
  const std::string magic3 = std::string(kProcessTableMagicLine3) + '\n';
  const bool version3 = text.starts_with(magic3);
  const bool version2 = text.starts_with(magic2) || version3;
  if (!text.starts_with(magic) && !version2)
    throw ProfileFormatError(path, 0, "not a process table (or unsupported version)");
  ProcessTable table;
  uint32_t last_thread = 0;  // a cputime line follows its thread's line
  for (size_t position = magic.size(); position < crc_line;) {
    const size_t end = text.find('\n', position);
    const std::vector<std::string_view> fields = split_tabs(text.substr(position, end - position));
    ProcessEntry process;
    ThreadEntry thread;
    if (fields[0] == "process" && parse_process(fields, &process)) {
      if (!table.processes.emplace(process.pid, process).second)
        throw ProfileFormatError(path, position,
                                 "process " + std::to_string(process.pid) + " listed twice");
    } else if (version2 && fields[0] == "counts") {
      if (!parse_counts(fields, table))
        throw ProfileFormatError(path, position, "malformed or misplaced counts line");
    } else if (version2 && fields[0] == "count") {
      if (!parse_count(fields, table))
        throw ProfileFormatError(path, position, "malformed or misplaced count line");
    } else if (fields[0] == "thread" && parse_thread(fields, &thread)) {
      if (!table.threads.emplace(thread.tid, thread).second)
        throw ProfileFormatError(path, position,
                                 "thread " + std::to_string(thread.tid) + " listed twice");
    } else if (version3 && fields[0] == "cputime") {
      if (!parse_cpu_time(fields, table, last_thread))
        throw ProfileFormatError(path, position, "malformed or misplaced cputime line");
    } else {
      throw ProfileFormatError(path, position, "malformed process table line");
    }
    last_thread = fields[0] == "thread" ? thread.tid : 0;
    position = end + 1;
  }
  return table;
}

std::optional<ProcessTable> read_process_table(const std::filesystem::path& epoch_directory) {
  return read_process_table_file(epoch_directory / kProcessTableName);
}

std::optional<ProcessTable> read_process_table_file(const std::filesystem::path& file) {
  if (!std::filesystem::exists(std::filesystem::symlink_status(file))) return std::nullopt;
  const std::vector<uint8_t> bytes =
      profiledb::read_file_bytes(file, SIZE_MAX, profiledb::kMaxTextFileBytes);
  return decode_process_table(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file.string());
}

}  // namespace dcpi
