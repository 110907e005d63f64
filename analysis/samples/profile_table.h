// Samples per image or per procedure, one column per event: the table behind
// `dcpi prof` (DCPI §3.1, Figure 1) and the per-procedure counts that
// `dcpi stats` and `dcpi diff` compare.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"
#include "symbols/image_resolver.h"

namespace dcpi {

enum class Grouping { kImage, kProcedure };

// What `dcpi prof --by` groups samples by, in column order, like perf
// report's --sort: "pid,image" gives one row per (pid, image). A procedure
// or a source line is always shown with its image (names are per image).
// kTid: one row per thread (issue 29), shown with its process.
enum class GroupKey { kImage, kProcedure, kPid, kCpu, kLine, kTid };
// "image,pid" -> {kImage, kPid}; perf's names are accepted too (dso, sym,
// srcline, comm for pid); throws std::invalid_argument naming a bad key.
std::vector<GroupKey> parse_group_keys(const std::string& text);
// Every name parse_group_keys accepts (for suggestions).
std::vector<std::string> group_key_names();
std::string group_keys_text(const std::vector<GroupKey>& keys);

inline constexpr const char* kUnknownProcedure = "[unknown]";
// The source line of an address DWARF does not cover (perf's "??:0").
inline constexpr const char* kNoSourceLine = "[no source line]";

struct ReportRow {
  std::string image;              // display name ("copy", "kernel.elf", "[unknown]"); empty
                                  // when not grouped by image or procedure
  std::string image_path;         // as the guest reported it
  std::string build_id;           // the image's
  std::string procedure;          // empty unless grouped by procedure
  std::string source_file;        // grouped by line: DWARF's file name, or kNoSourceLine
  int source_line = 0;            // grouped by line; 0 when DWARF has none
  std::optional<uint32_t> pid;    // when grouped by pid or tid (the thread's process)
  std::optional<uint32_t> tid;    // when grouped by tid
  std::optional<uint32_t> cpu;    // when grouped by CPU
  std::optional<uint64_t> start;  // procedure start address, when a symbol named it
  std::vector<uint64_t> samples;  // one per ProfileReport::events entry
  // Per event: samples × what each stood for (event_scale.h), summed over
  // the epochs; meaningful where ProfileReport::estimated_known says so.
  std::vector<double> estimated;
};

struct ProfileReport {
  std::vector<std::string> events;  // column order: by event number ("cycles" first)
  std::vector<uint64_t> totals;     // per event, over every row (unknown included)
  // Issue 26: per event, the projected count (samples × mean period ÷ share
  // of time counted), whether every epoch recorded what it needs, and how a
  // sample was scaled ("varies by epoch" when the epochs differ).
  std::vector<double> estimated_totals;
  std::vector<bool> estimated_known;
  std::vector<std::string> scale_notes;
  std::vector<ReportRow> rows;        // most samples of the first event first
  std::vector<std::string> warnings;  // images without names, mismatched build-ids
  uint64_t unknown_samples = 0;       // first event, in the "[unknown]" row
  std::vector<GroupKey> keys;         // what the rows are grouped by
  // Two images of the rows share a path but not a build-id: reports then
  // show the build-id so the rows can be told apart.
  bool build_ids_needed = false;
  std::map<uint32_t, std::vector<std::string>> programs;  // programs_by_pid, when grouped by pid
  std::map<uint32_t, std::string> thread_names;           // thread_names, when grouped by tid
};

ProfileReport build_report(const SampleSet& samples, ImageResolver& resolver, Grouping grouping);
ProfileReport build_report(const SampleSet& samples, ImageResolver& resolver,
                           const std::vector<GroupKey>& keys);

// The programs each PID ran: from the epochs' process tables (issue 29: the
// program each process ran last), and for a PID no table knows, from the
// samples themselves: the user images
// (guest paths starting with '/'; the kernel and PALcode are named without
// one, hostdump's load map) with samples of that PID, shared objects
// (NAME.so*) only when it has nothing else; PID 0 is the kernel's
// own (no process) and has no entry. PIDs of different runs
// (epochs) that ran different programs list all of them.
std::map<uint32_t, std::vector<std::string>> programs_by_pid(const SampleSet& samples);
// "3:copy", "0:[kernel]", "7:copy,stream"; "9" when no user image has its samples.
std::string pid_label(uint32_t pid, const std::map<uint32_t, std::vector<std::string>>& programs);
// Each thread's name from the process tables (the newest epoch's).
std::map<uint32_t, std::string> thread_names(const SampleSet& samples);
// "12:worker", or "12" for a thread no table names.
std::string tid_label(uint32_t tid, const std::map<uint32_t, std::string>& names);

// "copy+0x120001234": the name of an address no symbol covers. The number is
// the ELF virtual address (what objdump shows), not an offset.
std::string address_name(const ImageIdentity& image, uint64_t address);

// How reports name `procedure` of `image`: code named only by its CFI
// (ProcedureSource::kFrameInfo) shows as image+0x<start>, as an address
// outside every procedure does.
std::string procedure_display_name(const ImageIdentity& image, const Procedure& procedure);

// The procedure holding `address` in `image`: its symbol's name and start,
// "[unknown]" for the unknown image, else address_name's.
struct ProcedureName {
  std::string name;
  std::optional<uint64_t> start;
};
ProcedureName name_procedure(const ImageIdentity& image, const ResolvedImage& resolved,
                             uint64_t address);

// Index of `event` in report.events, or nullopt.
std::optional<size_t> event_column(const ProfileReport& report, const std::string& event);

// Row identity across reports (stats, diff): image path + procedure.
std::string row_key(const ReportRow& row);
// "dwarf_workload.c:8" (the file's last component), or kNoSourceLine.
std::string source_line_text(const ReportRow& row);

}  // namespace dcpi
