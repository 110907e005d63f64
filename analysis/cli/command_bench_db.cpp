// `dcpi bench-db`: how fast sample entries are merged into the profile
// database, how large the database is against the profiled images (DCPI
// §4.3.3: "smaller than their associated executables by an order of
// magnitude"), and the unknown-sample fraction of a synthetic stream with
// process exits and PID reuse. Synthetic, but over real ELF images: samples
// fall on real functions with a Zipf-like skew and hot loops inside them.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/reports/json_writer.h"
#include "hostdump/profile_builder.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "symbols/elf_symbols.h"

namespace dcpi {

const std::string_view kBenchDbUsage =
    "usage: dcpi bench-db --images KERNEL.elf[,PROGRAM.elf...] [--entries N] [--updates U]\n"
    "                     [--coverage F] [--dir DIR] [--json FILE] [--seed S]\n"
    "\n"
    "Generates a synthetic sample stream over the functions of real ELF images (the\n"
    "first is mapped as the kernel, for every PID; the others are exec'd by 8\n"
    "processes, some of which exit and have their PID reused), ingests it in U\n"
    "updates into a fresh database and prints a table:\n"
    "  entries merged per second (in memory, and end to end with the disk writes),\n"
    "  database size against the images' sizes, unknown-sample fraction.\n"
    "  --entries  sample entries in all (default 20000000)\n"
    "  --updates  merges into the database (default 5)\n"
    "  --coverage fraction of each image's functions that ever run (default 0.25; 1 = all)\n"
    "  --dir      where to create the database (default: a temporary directory, removed)\n"
    "  --json     also write the results as JSON to FILE\n";

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kUserLoadBase = 0x200000000ull;  // where programs are mapped
constexpr uint32_t kProcesses = 8;
constexpr uint32_t kCpus = 4;
constexpr double kWildFraction = 0.0005;  // PCs in no image at all (e.g. a JIT'd trampoline)

struct Image {
  ElfSymbols symbols;
  uint64_t file_bytes = 0;
  uint64_t low = 0, high = 0;             // span of its functions
  std::vector<double> cumulative_weight;  // per function, Zipf over a random rank
};

// Real programs execute a fraction of their code (DCPI §4.3.3: "significant
// fractions of most executable images consist of symbol tables and
// instructions that are never executed"): only `coverage` of the functions
// ever run, and the hottest ones always do.
Image load_image(const std::string& path, double coverage, std::mt19937_64& random) {
  Image image{ElfSymbols::open(path), fs::file_size(path), ~0ull, 0, {}};
  const auto& functions = image.symbols.functions();
  std::vector<size_t> rank(functions.size());
  for (size_t i = 0; i < rank.size(); ++i) rank[i] = i;
  std::shuffle(rank.begin(), rank.end(), random);
  double sum = 0;
  for (size_t i = 0; i < functions.size(); ++i) {
    const ElfSymbol& f = functions[i];
    const bool runs =
        rank[i] < 16 || std::uniform_real_distribution<double>(0, 1)(random) < coverage;
    if (f.size >= 4 && runs) {
      image.low = std::min(image.low, f.address);
      image.high = std::max(image.high, f.address + f.size);
      sum += 1.0 / std::pow(double(rank[i] + 1), 1.2);
    }
    image.cumulative_weight.push_back(sum);
  }
  if (sum == 0) throw std::runtime_error(path + " has no sized functions to sample");
  return image;
}

// A PC inside the image (link address): a function by weight, then a hot
// 16-instruction loop inside it 80% of the time.
uint64_t sample_pc(const Image& image, std::mt19937_64& random) {
  std::uniform_real_distribution<double> unit(0, 1);
  const auto& weights = image.cumulative_weight;
  const size_t index =
      std::lower_bound(weights.begin(), weights.end(), unit(random) * weights.back()) -
      weights.begin();
  const ElfSymbol& f = image.symbols.functions()[std::min(index, weights.size() - 1)];
  const uint64_t instructions = std::max<uint64_t>(1, f.size / 4);
  const uint64_t loop_start = (f.address / 4 * 2654435761u) % instructions;  // fixed per function
  uint64_t slot =
      unit(random) < 0.8 ? (loop_start + random() % 16) % instructions : random() % instructions;
  return f.address + 4 * slot;
}

LoadMapRecord exec_record(LoadKind kind, uint32_t pid, const Image& image, uint64_t load) {
  LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(kind);
  record.pid = pid;
  record.load_address = load;
  record.size = image.high - image.low;
  record.link_address = image.low;
  const std::string& path = image.symbols.path();
  path.copy(record.path, std::min<size_t>(path.size(), kImagePathMax - 1));
  const std::string hex = image.symbols.build_id().value_or("");
  for (size_t i = 0; i + 1 < hex.size() && i / 2 < kBuildIdMax; i += 2)
    record.build_id[record.build_id_bytes++] =
        static_cast<uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16));
  return record;
}

uint64_t directory_bytes(const fs::path& directory, const std::string& suffix) {
  uint64_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(directory))
    if (entry.is_regular_file() && entry.path().string().ends_with(suffix))
      bytes += entry.file_size();
  return bytes;
}

struct Results {
  uint64_t entries = 0, samples = 0, unknown = 0, rows = 0, profiles = 0;
  double memory_seconds = 0, total_seconds = 0;
  uint64_t database_bytes = 0, image_bytes = 0;
  std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> per_image;  // profile, ELF
};

// The stream's building block: 1M entries (re-used across the run, as a
// long run keeps hitting the same hot PCs). 30% user, 70% kernel if there
// are programs; counts as after hash-table aggregation (DCPI §4.2.1).
std::vector<SampleEntry> make_sample_block(const std::vector<Image>& images,
                                           std::mt19937_64& random) {
  const bool have_programs = images.size() > 1;
  constexpr size_t kBlock = 1 << 20;
  std::vector<SampleEntry> block(kBlock);
  for (SampleEntry& entry : block) {
    const uint32_t pid = 10 + static_cast<uint32_t>(random() % kProcesses);
    entry.pid = static_cast<uint16_t>(pid);
    entry.event = 0;
    entry.count = 1 + static_cast<uint32_t>(random() % 40);
    if (std::uniform_real_distribution<double>(0, 1)(random) < kWildFraction) {
      entry.pc = 0x7000000000ull + 4 * (random() % 1000);
    } else if (have_programs && random() % 10 < 3) {
      const Image& program = images[1 + pid % (images.size() - 1)];
      entry.pc = sample_pc(program, random) - program.low + kUserLoadBase;
    } else {
      entry.pc = sample_pc(images[0], random);
    }
  }
  return block;
}

}  // namespace

int run_bench_db_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(
      arguments, {{"images", "entries", "updates", "dir", "json", "seed", "coverage"}, {}});
  std::vector<std::string> paths;
  std::stringstream list(options.required("images"));
  for (std::string path; std::getline(list, path, ',');)
    if (!path.empty()) paths.push_back(path);
  const uint64_t total_entries = std::stoull(options.value("entries").value_or("20000000"));
  const uint64_t updates =
      std::max<uint64_t>(1, std::stoull(options.value("updates").value_or("5")));
  std::mt19937_64 random(std::stoull(options.value("seed").value_or("1")));

  std::vector<Image> images;
  const double coverage = std::stod(options.value("coverage").value_or("0.25"));
  for (const std::string& path : paths) images.push_back(load_image(path, coverage, random));
  const bool have_programs = images.size() > 1;

  const std::vector<SampleEntry> block = make_sample_block(images, random);

  const bool temporary = !options.value("dir");
  const fs::path directory =
      temporary ? fs::temp_directory_path() / ("dcpi-bench-db-" + std::to_string(::getpid()))
                : fs::path(*options.value("dir"));
  if (temporary) fs::remove_all(directory);
  Results results;
  {
    ProfileDatabaseWriter writer(directory);
    ProfileBuilder builder;
    builder.load_map().apply(exec_record(LoadKind::kKernel, 0, images[0], images[0].low));
    if (have_programs)
      for (uint32_t pid = 10; pid < 10 + kProcesses; ++pid)
        builder.load_map().apply(exec_record(LoadKind::kExec, pid,
                                             images[1 + pid % (images.size() - 1)], kUserLoadBase));
    constexpr size_t kChunk = 8192;  // one overflow buffer (DESIGN §5)
    const uint64_t per_update = total_entries / updates;
    size_t offset = 0;
    uint32_t cpu = 0;
    for (uint64_t update = 0; update < updates; ++update) {
      if (update == updates / 2) {
        // pid 10 exits; its samples keep arriving (lazy flushes) and must still be placed.
        LoadMapRecord exit{};
        exit.kind = static_cast<uint32_t>(LoadKind::kExit);
        exit.pid = 10;
        builder.load_map().apply(exit);
      }
      const auto start = Clock::now();
      for (uint64_t done = 0; done < per_update;) {
        const size_t n = std::min<uint64_t>({kChunk, per_update - done, block.size() - offset});
        builder.add_samples(1, static_cast<uint16_t>(cpu++ % kCpus), {block.data() + offset, n});
        offset = (offset + n) % block.size();
        done += n;
      }
      const auto merged = Clock::now();
      builder.flush(writer);
      results.memory_seconds += std::chrono::duration<double>(merged - start).count();
      results.total_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
    results.entries = builder.totals().entries;
    results.samples = builder.totals().samples;
    results.unknown = builder.totals().unknown_samples;
  }
  const ProfileDatabase db = ProfileDatabase::open(directory);
  std::map<std::string, uint64_t> profile_bytes;
  for (const ProfileInfo& info : db.profiles(1)) {
    results.rows += info.row_count;
    ++results.profiles;
    profile_bytes[info.image.path] += fs::file_size(info.file);
  }
  results.database_bytes = directory_bytes(directory, "");
  for (const Image& image : images) {
    results.image_bytes += image.file_bytes;
    results.per_image.push_back(
        {image.symbols.path(), {profile_bytes[image.symbols.path()], image.file_bytes}});
  }
  if (temporary) fs::remove_all(directory);

  const double memory_rate = double(results.entries) / results.memory_seconds;
  const double total_rate = double(results.entries) / results.total_seconds;
  const double ratio = double(results.image_bytes) / double(results.database_bytes);
  const double unknown_percent = 100.0 * double(results.unknown) / double(results.samples);
  std::cout << std::fixed << std::setprecision(2);
  std::cout << "metric                                   value\n"
            << "entries ingested                         " << results.entries << '\n'
            << "samples ingested                         " << results.samples << '\n'
            << "updates (merges into the database)       " << updates << '\n'
            << "entries/s, attribution + aggregation     " << memory_rate / 1e6 << " M\n"
            << "entries/s, end to end incl. disk merge   " << total_rate / 1e6 << " M\n"
            << "profiles / rows                          " << results.profiles << " / "
            << results.rows << '\n'
            << "database bytes (all files)               " << results.database_bytes << '\n'
            << "image bytes (ELF files)                  " << results.image_bytes << '\n'
            << "images / database                        " << ratio << "x\n"
            << "unknown samples                          " << unknown_percent << " % (injected "
            << kWildFraction * 100 << " % wild PCs)\n";
  for (const auto& [path, sizes] : results.per_image)
    std::cout << "  " << path << ": profile " << sizes.first << " bytes, ELF " << sizes.second
              << " bytes\n";
  if (const auto json_path = options.value("json")) {
    std::ofstream file(*json_path);
    JsonWriter json(file, JsonWriter::Style::kSpaced);  // doubles at 6 digits, as always
    json.begin_object().field("entries", results.entries).field("samples", results.samples);
    json.field("updates", updates).key("entries_per_second_memory").real(memory_rate, 6);
    json.key("entries_per_second_end_to_end").real(total_rate, 6);
    json.field("profiles", results.profiles).field("rows", results.rows);
    json.field("database_bytes", results.database_bytes).field("image_bytes", results.image_bytes);
    json.key("size_ratio").real(ratio, 6).key("unknown_fraction").real(unknown_percent / 100, 6);
    json.key("wild_fraction_injected").real(kWildFraction, 6).end_object();
    if (!file) throw std::runtime_error("cannot write " + *json_path);
  }
  return 0;
}

}  // namespace dcpi
