// Benchmark of the report tools: builds a large synthetic database over a real
// image (by default the guest kernel.elf), then times `dcpi prof` (read,
// filter, symbolize and aggregate every profile) and `dcpi list` (every
// sampled procedure of every image). Prints a table and writes JSON.
//
//   report_bench --kernel build/guest/kernel/kernel.elf [--rows N] [--json FILE]
//
// Rows are stored entries (pid, cpu, address) -> count; MB/s is database bytes
// on disk read per second.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "analysis/reports/report_output.h"
#include "analysis/samples/procedure_listing.h"
#include "analysis/samples/profile_table.h"
#include "profiledb/profile_db_writer.h"
#include "symbols/elf_image.h"

namespace fs = std::filesystem;
using namespace dcpi;

namespace {

struct Options {
  std::string kernel;
  uint64_t rows = 400000;
  std::string json;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i], value = argv[i + 1];
    if (name == "--kernel")
      options.kernel = value;
    else if (name == "--rows")
      options.rows = std::stoull(value);
    else if (name == "--json")
      options.json = value;
    else
      throw std::runtime_error("unknown option " + name);
  }
  if (options.kernel.empty())
    throw std::runtime_error("usage: report_bench --kernel ELF [--rows N] [--json FILE]");
  return options;
}

constexpr uint64_t kPids = 64;
constexpr uint64_t kCpus = 4;

// Spreads `rows` entries over the image's functions, kPids PIDs and kCpus CPUs.
uint64_t write_database(const fs::path& directory, const ElfImage& kernel, const Options& options) {
  std::vector<ElfSymbol> functions;
  for (const ElfSymbol& function : kernel.symbols().functions())
    if (function.size >= 4) functions.push_back(function);
  if (functions.empty()) throw std::runtime_error(kernel.path() + " has no sized functions");
  // Keys are (pid, cpu, instruction): cap the target below what the image can hold.
  uint64_t instructions = 0;
  for (const ElfSymbol& function : functions) instructions += function.size / 4;
  const uint64_t target = std::min(options.rows, instructions * kPids * kCpus * 3 / 4);
  std::mt19937_64 random(1);
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint64_t> counts;
  while (counts.size() < target) {
    const ElfSymbol& function = functions[random() % functions.size()];
    const uint64_t address = function.address + 4 * (random() % (function.size / 4));
    counts[{static_cast<uint32_t>(random() % kPids), static_cast<uint32_t>(random() % kCpus),
            address}] += 1 + random() % 50;
  }
  std::vector<ProfileRow> rows;
  uint64_t total = 0;
  for (const auto& [key, count] : counts) {
    rows.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), count});
    total += count;
  }
  ProfileDatabaseWriter writer(directory);
  const ImageIdentity identity{kernel.build_id().value_or(""), "/kernel.elf", 0, false};
  writer.merge_profile(1, identity, 0, rows);
  writer.merge_profile(1, {"", "[unknown]", 0, true}, 0, {{1, 0, 0x1000, 7}});
  EpochMetadata metadata;
  metadata.epoch = 1;
  metadata.samples = total + 7;
  writer.merge_epoch_metadata(metadata);
  return rows.size() + 1;
}

uint64_t directory_bytes(const fs::path& directory) {
  uint64_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(directory))
    if (entry.is_regular_file()) bytes += entry.file_size();
  return bytes;
}

template <typename Work>
double seconds_of(Work work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse(argc, argv);
  const ElfImage kernel = ElfImage::open(options.kernel);
  const fs::path scratch =
      fs::temp_directory_path() / ("dcpi-report-bench-" + std::to_string(getpid()));
  fs::remove_all(scratch);
  fs::create_directories(scratch / "images");
  fs::copy_file(options.kernel, scratch / "images" / "kernel.elf");
  const uint64_t entries = write_database(scratch / "prof.db", kernel, options);
  const double megabytes = static_cast<double>(directory_bytes(scratch / "prof.db")) / 1e6;

  ProfileReport report;
  const double prof_seconds = seconds_of([&] {
    ImageResolver resolver({scratch / "images"});
    report = build_report(load_samples(ProfileDatabase::open(scratch / "prof.db"), {}), resolver,
                          Grouping::kProcedure);
  });
  size_t listed = 0, instructions = 0;
  const double list_seconds = seconds_of([&] {
    ImageResolver resolver({scratch / "images"});
    const SampleSet samples = load_samples(ProfileDatabase::open(scratch / "prof.db"), {});
    std::vector<std::string> warnings;
    for (const ReportRow& row : report.rows) {
      if (row.image_path == "[unknown]" || !row.start) continue;
      for (const ProcedureListing& listing :
           list_procedure(samples, resolver, row.procedure, nullptr, warnings)) {
        ++listed;
        instructions += listing.instructions.size();
      }
    }
  });
  fs::remove_all(scratch);

  TextTable table(
      {{"command"}, {"entries"}, {"MB"}, {"seconds"}, {"entries/s"}, {"MB/s"}, {"note", true}});
  auto add = [&](const std::string& name, double seconds, const std::string& note) {
    table.add_row({name, std::to_string(entries), fixed_text(megabytes, 2), fixed_text(seconds, 3),
                   fixed_text(static_cast<double>(entries) / seconds, 0),
                   fixed_text(megabytes / seconds, 1), note});
  };
  add("prof", prof_seconds, std::to_string(report.rows.size()) + " procedures");
  add("list", list_seconds,
      std::to_string(listed) + " procedures, " + std::to_string(instructions) + " instructions");
  std::cout << "report benchmark over " << options.kernel << "\n";
  table.print(std::cout);
  if (!options.json.empty()) {
    std::ofstream out(options.json);
    JsonWriter json(out);
    json.begin_object().field("image", options.kernel).field("entries", entries);
    json.field("megabytes", megabytes, 3);
    json.key("prof").begin_object().field("seconds", prof_seconds, 4);
    json.field("entries_per_second", static_cast<double>(entries) / prof_seconds, 0);
    json.field("megabytes_per_second", megabytes / prof_seconds, 2);
    json.field("procedures", uint64_t{report.rows.size()}).end_object();
    json.key("list").begin_object().field("seconds", list_seconds, 4);
    json.field("entries_per_second", static_cast<double>(entries) / list_seconds, 0);
    json.field("megabytes_per_second", megabytes / list_seconds, 2);
    json.field("procedures", uint64_t{listed}).field("instructions", uint64_t{instructions});
    json.end_object().end_object();
  }
  return 0;
} catch (const std::exception& error) {
  std::cerr << "report_bench: " << error.what() << '\n';
  return 1;
}
