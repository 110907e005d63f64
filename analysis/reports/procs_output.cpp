#include "analysis/reports/procs_output.h"

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"

namespace dcpi {
namespace {

template <typename T>
std::string optional_number(const std::optional<T>& value) {
  return value ? std::to_string(*value) : "-";
}

std::string status_text(const std::optional<int64_t>& status) {
  return status ? wait_status_text(*status) : "running";
}

uint64_t samples_of(const std::map<uint32_t, uint64_t>& samples, uint32_t id) {
  const auto found = samples.find(id);
  return found == samples.end() ? 0 : found->second;
}

void print_epoch(const EpochProcesses& epoch, std::ostream& out) {
  out << "epoch " << epoch.epoch << " (machine " << epoch.machine << "): ";
  if (!epoch.has_table) {
    out << "no process table (written before dcpi recorded one)\n";
    return;
  }
  out << epoch.table.processes.size() << " processes, " << epoch.table.threads.size()
      << " threads; times are guest cycles\n\n";
  TextTable processes({{"pid"},
                       {"ppid"},
                       {"start"},
                       {"end"},
                       {"status", true},
                       {"samples"},
                       {"program", true},
                       {"argv[0]", true}});
  for (const auto& [pid, p] : epoch.table.processes)
    processes.add_row({std::to_string(pid), std::to_string(p.parent), std::to_string(p.start),
                       optional_number(p.end), status_text(p.status),
                       std::to_string(samples_of(epoch.samples_by_pid, pid)), p.program,
                       p.command});
  processes.print(out);
  out << '\n';
  TextTable threads({{"tid"}, {"pid"}, {"start"}, {"end"}, {"samples"}, {"name", true}});
  for (const auto& [tid, t] : epoch.table.threads)
    threads.add_row({std::to_string(tid), std::to_string(t.pid), std::to_string(t.start),
                     optional_number(t.end), std::to_string(samples_of(epoch.samples_by_tid, tid)),
                     t.name});
  threads.print(out);
}

template <typename T>
void optional_field(JsonWriter& json, const char* name, const std::optional<T>& value) {
  json.key(name);
  value ? json.value(*value) : json.null();
}

}  // namespace

void print_procs_text(const std::vector<EpochProcesses>& epochs, std::ostream& out) {
  if (epochs.empty()) out << "No epochs (empty database, or nothing matches the filters).\n";
  for (size_t i = 0; i < epochs.size(); ++i) {
    if (i) out << '\n';
    print_epoch(epochs[i], out);
  }
}

void print_procs_json(const std::vector<EpochProcesses>& epochs, std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().key("epochs").begin_array();
  for (const EpochProcesses& epoch : epochs) {
    json.begin_object().field("epoch", epoch.epoch).field("machine", epoch.machine);
    json.field("has_table", epoch.has_table).key("processes").begin_array();
    for (const auto& [pid, p] : epoch.table.processes) {
      json.begin_object().field("pid", pid).field("parent", p.parent).field("start", p.start);
      optional_field(json, "end", p.end);
      optional_field(json, "wait_status", p.status);
      json.field("samples", samples_of(epoch.samples_by_pid, pid));
      json.field("program", p.program).field("argv0", p.command).end_object();
    }
    json.end_array().key("threads").begin_array();
    for (const auto& [tid, t] : epoch.table.threads) {
      json.begin_object().field("tid", tid).field("pid", t.pid).field("start", t.start);
      optional_field(json, "end", t.end);
      optional_field(json, "wait_status", t.status);
      json.field("samples", samples_of(epoch.samples_by_tid, tid));
      json.field("name", t.name).end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();
}

}  // namespace dcpi
