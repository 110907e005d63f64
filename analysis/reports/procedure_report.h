// Samples per image or per procedure, one column per event: the table behind
// `dcpi prof` (DCPI §3.1, Figure 1) and the per-procedure counts that
// `dcpi stats` and `dcpi diff` compare.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/symbols/image_resolver.h"
#include "analysis/reports/sample_set.h"

namespace dcpi {

enum class Grouping { kImage, kProcedure };

inline constexpr const char* kUnknownProcedure = "[unknown]";

struct ReportRow {
  std::string image;              // display name ("copy", "kernel.elf", "[unknown]")
  std::string image_path;         // as the guest reported it
  std::string procedure;          // empty when grouped by image
  std::optional<uint64_t> start;  // procedure start address, when a symbol named it
  std::vector<uint64_t> samples;  // one per ProfileReport::events entry
};

struct ProfileReport {
  std::vector<std::string> events;    // column order: by event number ("cycles" first)
  std::vector<uint64_t> totals;       // per event, over every row (unknown included)
  std::vector<ReportRow> rows;        // most samples of the first event first
  std::vector<std::string> warnings;  // images without names, mismatched build-ids
  uint64_t unknown_samples = 0;       // first event, in the "[unknown]" row
};

ProfileReport build_report(const SampleSet& samples, ImageResolver& resolver, Grouping grouping);

// "copy+0x120001234": the name of an address no symbol covers. The number is
// the ELF virtual address (what objdump shows), not an offset.
std::string address_name(const ImageIdentity& image, uint64_t address);

// Index of `event` in report.events, or nullopt.
std::optional<size_t> event_column(const ProfileReport& report, const std::string& event);

// Row identity across reports (stats, diff): image path + procedure.
std::string row_key(const ReportRow& row);

}  // namespace dcpi
