// Per-function sample counts from a snapshot of the per-CPU sample logs, and
// the text / JSON reports of `dcpi samples`.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/symbols/pc_symbolizer.h"
#include "hostdump/sample_log_reader.h"

namespace dcpi {

struct FunctionSamples {
  std::string function;
  uint64_t samples = 0;
};

struct CpuSampleSummary {
  uint32_t slot = 0;
  uint64_t cpu = 0;
  uint64_t samples = 0;  // records read
  uint64_t dropped = 0;  // lost in the guest because the log was full
};

struct SampleProfile {
  uint64_t total_samples = 0;
  std::vector<FunctionSamples> functions;  // most samples first, then by name
  std::vector<CpuSampleSummary> cpus;
  std::vector<uint32_t> uninitialised_slots;
};

SampleProfile build_sample_profile(const SampleLogSnapshot& snapshot,
                                   const PcSymbolizer& symbolizer);

void print_profile_table(const SampleProfile& profile, std::ostream& out);
void print_profile_json(const SampleProfile& profile, std::ostream& out);

// JSON string literal with quotes and escapes.
std::string json_quote(std::string_view text);

}  // namespace dcpi
