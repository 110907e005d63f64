#include "analysis/reports/sample_profile.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace dcpi {
namespace {

double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string format(const char* pattern, auto... values) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

std::string percent_text(double value) { return format("%.2f", value); }

void print_cpu_lines(const SampleProfile& profile, std::ostream& out) {
  out << format("%-6s %10s %10s\n", "cpu", "samples", "dropped");
  for (const CpuSampleSummary& cpu : profile.cpus)
    out << format("%-6llu %10llu %10llu\n", static_cast<unsigned long long>(cpu.cpu),
                  static_cast<unsigned long long>(cpu.samples),
                  static_cast<unsigned long long>(cpu.dropped));
}

}  // namespace

SampleProfile build_sample_profile(const SampleLogSnapshot& snapshot,
                                   const PcSymbolizer& symbolizer) {
  SampleProfile profile;
  profile.uninitialised_slots = snapshot.uninitialised_slots;
  std::map<std::string, uint64_t> by_function;
  for (const CpuSamples& cpu : snapshot.cpus) {
    profile.cpus.push_back({cpu.slot, cpu.header.cpu, cpu.records.size(), cpu.header.dropped});
    profile.total_samples += cpu.records.size();
    for (const SampleRecord& record : cpu.records) ++by_function[symbolizer.name_for(record.pc)];
  }
  for (const auto& [function, samples] : by_function)
    profile.functions.push_back({function, samples});
  std::stable_sort(
      profile.functions.begin(), profile.functions.end(),
      [](const FunctionSamples& a, const FunctionSamples& b) { return a.samples > b.samples; });
  return profile;
}

void print_profile_table(const SampleProfile& profile, std::ostream& out) {
  out << "Total samples: " << profile.total_samples << " on " << profile.cpus.size()
      << " CPU(s)\n\n";
  print_cpu_lines(profile, out);
  if (!profile.uninitialised_slots.empty()) {
    out << "log slots never initialised by the kernel:";
    for (uint32_t slot : profile.uninitialised_slots) out << ' ' << slot;
    out << '\n';
  }
  out << '\n' << format("%10s %8s %8s  %s\n", "samples", "%", "cum %", "function");
  uint64_t cumulative = 0;
  for (const FunctionSamples& entry : profile.functions) {
    cumulative += entry.samples;
    out << format("%10llu %7.2f%% %7.2f%%  %s\n", static_cast<unsigned long long>(entry.samples),
                  percent(entry.samples, profile.total_samples),
                  percent(cumulative, profile.total_samples), entry.function.c_str());
  }
}

void print_profile_json(const SampleProfile& profile, std::ostream& out) {
  out << "{\n  \"total_samples\": " << profile.total_samples << ",\n  \"cpus\": [";
  for (size_t i = 0; i < profile.cpus.size(); ++i) {
    const CpuSampleSummary& cpu = profile.cpus[i];
    out << (i ? ",\n    " : "\n    ") << "{\"cpu\": " << cpu.cpu << ", \"samples\": " << cpu.samples
        << ", \"dropped\": " << cpu.dropped << "}";
  }
  out << (profile.cpus.empty() ? "],\n" : "\n  ],\n") << "  \"uninitialised_slots\": [";
  for (size_t i = 0; i < profile.uninitialised_slots.size(); ++i)
    out << (i ? ", " : "") << profile.uninitialised_slots[i];
  out << "],\n  \"functions\": [";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < profile.functions.size(); ++i) {
    const FunctionSamples& entry = profile.functions[i];
    cumulative += entry.samples;
    out << (i ? ",\n    " : "\n    ") << "{\"function\": " << json_quote(entry.function)
        << ", \"samples\": " << entry.samples
        << ", \"percent\": " << percent_text(percent(entry.samples, profile.total_samples))
        << ", \"cumulative_percent\": " << percent_text(percent(cumulative, profile.total_samples))
        << "}";
  }
  out << (profile.functions.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += format("\\u%04x", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace dcpi
